import { fullFormats } from "ajv-formats/dist/formats.js";
import type { JSDocTag } from "ts-morph";
import { isJsonNumberSyntax } from "livecmd/internal";
import { argumentValidator } from "livecmd/internal";
import { diagnosticAt, DiagnosticError } from "../discover/locate.ts";
import { CONSTRAINT_KEYWORDS, type ConstraintKeyword, type JsonSchema } from "../model.ts";

/** The tags ts-json-schema-generator and typia users write; `@default` documents a value only. */
const CONSTRAINT_TAGS = CONSTRAINT_KEYWORDS;
type ConstraintTag = ConstraintKeyword;

const NUMBER_TAGS = new Set<ConstraintTag>([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
]);
const LENGTH_TAGS = new Set<ConstraintTag>(["minLength", "maxLength"]);
/** Formats ajv-formats checks on numbers; every other one it knows is a string format. */
const NUMBER_FORMATS = new Set(["int32", "int64", "float", "double"]);

function isConstraintTag(name: string): name is ConstraintTag {
  return (CONSTRAINT_TAGS as readonly string[]).includes(name);
}

/** Where the tags sit and what they constrain, for messages: `parameter "id" of command "x"`. */
export interface TagSite {
  describe: string;
}

/**
 * `schema` with the constraint tags among `tags` applied (other tags are left to others), in
 * `CONSTRAINT_TAGS` order before its description. A tag with a value codegen cannot use, on a
 * type it does not apply to, given twice, or at odds with another is CG013 at the tag.
 */
export function withConstraintTags(
  schema: JsonSchema,
  tags: readonly JSDocTag[],
  site: TagSite,
): JsonSchema {
  const given = new Map<ConstraintTag, { tag: JSDocTag; value: unknown }>();
  for (const tag of tags) {
    const name = tag.getTagName();
    if (!isConstraintTag(name)) continue;
    if (given.has(name))
      throw tagError(tag, site, `@${name} is given twice for ${site.describe}; keep one`);
    given.set(name, { tag, value: tagValue(name, tag, schema, site) });
  }
  if (given.size === 0) return schema;
  checkBounds(given, site);
  const { description, ...rest } = schema;
  const constrained: JsonSchema = { ...rest };
  for (const name of CONSTRAINT_TAGS)
    if (given.has(name)) constrained[name] = given.get(name)!.value;
  if (given.has("default")) checkDefault(constrained, given.get("default")!, site);
  return description === undefined ? constrained : { ...constrained, description };
}

function tagValue(name: ConstraintTag, tag: JSDocTag, schema: JsonSchema, site: TagSite): unknown {
  const text = (tag.getCommentText() ?? "").trim();
  const type = scalarType(schema);
  if (NUMBER_TAGS.has(name)) {
    if (type !== "number" && type !== "integer")
      throw misplaced(tag, site, name, "a number or an Int");
    if (!isJsonNumberSyntax(text))
      throw tagError(
        tag,
        site,
        `@${name} needs a number, got ${JSON.stringify(text)}; write e.g. @${name} 1`,
      );
    const value = Number(text);
    if (name === "multipleOf" && !(value > 0))
      throw tagError(tag, site, `@multipleOf needs a number greater than 0, got ${text}`);
    return value;
  }
  if (LENGTH_TAGS.has(name)) {
    if (type !== "string") throw misplaced(tag, site, name, "a string");
    if (!/^(0|[1-9][0-9]*)$/.test(text))
      throw tagError(
        tag,
        site,
        `@${name} needs a whole number of characters, got ${JSON.stringify(text)}; write e.g. @${name} 3`,
      );
    return Number(text);
  }
  if (name === "pattern") return patternOf(tag, text, type, site);
  if (name === "format") return formatOf(tag, text, type, site);
  return defaultOf(text);
}

function patternOf(tag: JSDocTag, text: string, type: string | undefined, site: TagSite): string {
  if (type !== "string") throw misplaced(tag, site, "pattern", "a string");
  if (text === "")
    throw tagError(tag, site, "@pattern needs a regular expression, e.g. @pattern ^[a-z]+$");
  try {
    // ajv compiles patterns as Unicode regular expressions.
    new RegExp(text, "u");
  } catch (error) {
    throw tagError(
      tag,
      site,
      `@pattern ${text} is not a regular expression: ${(error as Error).message}`,
    );
  }
  return text;
}

function formatOf(tag: JSDocTag, text: string, type: string | undefined, site: TagSite): string {
  if (!Object.hasOwn(fullFormats, text)) {
    const known = Object.keys(fullFormats).sort().join(", ");
    throw tagError(
      tag,
      site,
      `@format ${JSON.stringify(text)} is not a format livecmd checks; use one of ${known}`,
    );
  }
  const wanted = NUMBER_FORMATS.has(text) ? "number" : "string";
  const fits = wanted === "number" ? type === "number" || type === "integer" : type === "string";
  if (!fits)
    throw tagError(
      tag,
      site,
      `@format ${text} applies to a ${wanted}, and ${site.describe} is ${type ? `a ${type}` : "not a scalar"}`,
    );
  return text;
}

/** JSON, else the text itself (`@default asc` as well as `@default "asc"`); the schema then judges it. */
function defaultOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function checkDefault(
  schema: JsonSchema,
  given: { tag: JSDocTag; value: unknown },
  site: TagSite,
): void {
  const { default: _default, ...checked } = schema;
  const errors = argumentValidator().validate(checked, given.value, "it");
  if (errors.length > 0) {
    const reasons = errors.map((error) => error.message).join("; ");
    throw tagError(
      given.tag,
      site,
      `@default ${JSON.stringify(given.value)} is not a value ${site.describe} accepts: it ${reasons}`,
    );
  }
}

/** Lower bounds above upper ones. */
function checkBounds(
  given: Map<ConstraintTag, { tag: JSDocTag; value: unknown }>,
  site: TagSite,
): void {
  for (const [low, high] of [
    ["minimum", "maximum"],
    ["minLength", "maxLength"],
    ["exclusiveMinimum", "exclusiveMaximum"],
  ] as const) {
    const lower = given.get(low);
    const upper = given.get(high);
    if (lower && upper && (lower.value as number) > (upper.value as number)) {
      throw tagError(
        upper.tag,
        site,
        `@${high} ${String(upper.value)} is below @${low} ${String(lower.value)}; no value of ${site.describe} could pass`,
      );
    }
  }
}

/** The one JSON type of a scalar schema (null aside), or undefined for anything else. */
function scalarType(schema: JsonSchema): string | undefined {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type) => type !== "null",
  );
  return types.length === 1 &&
    typeof types[0] === "string" &&
    types[0] !== "object" &&
    types[0] !== "array"
    ? types[0]
    : undefined;
}

function misplaced(tag: JSDocTag, site: TagSite, name: string, applies: string): DiagnosticError {
  return tagError(
    tag,
    site,
    `@${name} applies to ${applies}, and ${site.describe} is not one; move the tag or drop it`,
  );
}

function tagError(tag: JSDocTag, site: TagSite, message: string): DiagnosticError {
  return new DiagnosticError(diagnosticAt(tag, "CG013", message));
}
