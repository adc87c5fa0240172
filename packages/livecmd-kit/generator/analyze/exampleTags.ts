import type { JSDocTag } from "ts-morph";
import { argumentValidator } from "livecmd/internal";
import { diagnosticAt, DiagnosticError } from "../discover/locate.ts";
import type { JsonSchema } from "../model.ts";
import type { TagSite } from "./constraintTags.ts";

/**
 * `schema` with the values of its `@example` tags as JSON Schema `examples` (last, in the order
 * written): what the tool's `inputSchema` shows a client, and what a template's published
 * description offers a host for the variable (`listings`). A value is the tag's text, for a
 * string (quotes optional), else JSON (`@example 12`, `@example true`); one the schema refuses
 * is CG013 at the tag, since an example that does not work misleads whoever tries it.
 */
export function withExampleTags(
  schema: JsonSchema,
  tags: readonly JSDocTag[],
  site: TagSite,
): JsonSchema {
  const examples = tags
    .filter((tag) => tag.getTagName() === "example")
    .map((tag) => exampleOf(tag, schema, site));
  return examples.length === 0 ? schema : { ...schema, examples };
}

function exampleOf(tag: JSDocTag, schema: JsonSchema, site: TagSite): unknown {
  const text = (tag.getCommentText() ?? "").trim();
  if (text === "")
    throw tagError(tag, `@example needs a value ${site.describe} accepts, e.g. @example 12`);
  const value = valueOf(text, schema.type === "string");
  const { description: _description, default: _default, ...checked } = schema;
  const errors = argumentValidator().validate(checked, value, "it");
  if (errors.length > 0)
    throw tagError(
      tag,
      `@example ${text} is not a value ${site.describe} accepts: it ${errors.map((error) => error.message).join("; ")}`,
    );
  return value;
}

function valueOf(text: string, isString: boolean): unknown {
  const quoted = /^"(?:[^"\\]|\\.)*"$/.test(text);
  if (isString && !quoted) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function tagError(tag: JSDocTag, message: string): DiagnosticError {
  return new DiagnosticError(diagnosticAt(tag, "CG013", message));
}
