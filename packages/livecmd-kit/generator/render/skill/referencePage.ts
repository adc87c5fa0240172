import { VERSION_META_KEY } from "livecmd/internal";
import { CONSTRAINT_KEYWORDS, type ConstraintKeyword, type JsonSchema } from "../../model.ts";
import type { ReadableSkill, VariableSkill } from "../../plan/planSkill.ts";
import type { ScalarKind } from "../../plan/scalar.ts";
import { resultTypeOf } from "../resultTypes.ts";
import { code, page, typescriptBlock } from "./markdown.ts";

/**
 * One readable command's reference page: its URI, each variable with its type, constraints and
 * description, worked examples (as a URI and as the tool's arguments), and what reading it
 * returns, as the TypeScript type `uris.ts` gives it.
 */
export function referencePage(readable: ReadableSkill, notice: string): string {
  const title = readable.title === undefined ? "" : `: ${readable.title}`;
  return page([
    [`<!-- ${notice} -->`],
    [`# ${readable.command}${title}`],
    [readable.description],
    [
      `- ${readable.variables.length > 0 ? "Template" : "Resource"}: ${code(readable.uri)}`,
      ...(readable.resource === undefined
        ? []
        : [`- Without variables: ${code(readable.resource)}`]),
      `- Tool: ${code(readable.command)}, with the same values as its arguments`,
    ],
    ...variables(readable.variables),
    ...examples(readable),
    ["## What it returns"],
    typescriptBlock(resultTypeOf(readable.command, readable.uri, readable.result)),
    [
      `${code("Int")} is an integer. A read's contents carry the result's version (${code(`_meta["${VERSION_META_KEY}"]`)}), the one the watch tool compares.`,
    ],
  ]);
}

function variables(list: readonly VariableSkill[]): string[][] {
  if (list.length === 0) return [];
  return [["## Variables"], list.map(variableLine)];
}

function variableLine({ name, required, kind, schema }: VariableSkill): string {
  const where = required ? "required, in the path" : "optional, in the query";
  const described = typeof schema.description === "string" ? ` ${schema.description}` : "";
  const constraints = CONSTRAINT_KEYWORDS.flatMap((keyword) =>
    schema[keyword] === undefined || keyword === "format"
      ? []
      : [CONSTRAINT_WORDS[keyword](schema[keyword])],
  );
  const bounds = constraints.length === 0 ? "" : ` ${sentence(constraints.join(", "))}`;
  const about = `${described}${bounds}`;
  return `- ${code(name)} (${typeInWords(kind, schema)}; ${where})${about && `:${about}`}`;
}

function typeInWords(kind: ScalarKind, schema: JsonSchema): string {
  if (kind === "enum")
    return `one of ${(schema.enum as unknown[]).map((value) => code(String(value))).join(", ")}`;
  return typeof schema.format === "string" ? `${schema.format} ${kind}` : kind;
}

/** A constraint of a variable's schema in words (the keywords of `CONSTRAINT_KEYWORDS` but format). */
const CONSTRAINT_WORDS: Readonly<
  Record<Exclude<ConstraintKeyword, "format">, (value: unknown) => string>
> = {
  minimum: (value) => `at least ${String(value)}`,
  maximum: (value) => `at most ${String(value)}`,
  exclusiveMinimum: (value) => `more than ${String(value)}`,
  exclusiveMaximum: (value) => `less than ${String(value)}`,
  multipleOf: (value) => `a multiple of ${String(value)}`,
  minLength: (value) => `at least ${String(value)} characters`,
  maxLength: (value) => `at most ${String(value)} characters`,
  pattern: (value) => `matching the regular expression ${code(String(value))}`,
  default: (value) => `${code(String(value))} when absent`,
};

function examples(readable: ReadableSkill): string[][] {
  if (readable.examples.length === 0)
    return [
      ["## Examples"],
      ["None could be made from the variables' types; fill them in from their descriptions."],
    ];
  return [
    ["## Examples"],
    readable.examples.map(
      ({ uri, arguments: args }) =>
        `- ${code(uri)}, or the tool ${code(readable.command)} with ${code(JSON.stringify(args))}`,
    ),
  ];
}

function sentence(words: string): string {
  return `${words[0]!.toUpperCase()}${words.slice(1)}.`;
}
