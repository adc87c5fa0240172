import {
  argumentValidator,
  descriptionExamples,
  isJsonNumberSyntax,
  percentEncode,
} from "livecmd/internal";
import type { JsonSchema } from "../model.ts";
import type { TemplatePlan } from "./planCommand.ts";
import type { PlannedVariable } from "./planVariables.ts";

/** One variable's example: its text in a URI, and its value in a `tools/call`. */
export interface ExampleValue {
  readonly text: string;
  readonly value: unknown;
}

/** An expanded URI of a template, and the same values as `tools/call` arguments by variable. */
export interface ExampleUri {
  readonly uri: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** What a string variable of a format looks like (one value, valid for the format). */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  date: "2025-01-31",
  "date-time": "2025-01-31T12:00:00Z",
  time: "12:00:00Z",
  email: "ada@example.com",
  uuid: "123e4567-e89b-42d3-a456-426614174000",
  uri: "https://example.com/",
};

/**
 * A value for `variable`, as a person filling the template in would pick it: an example its
 * command's summary gives (`fromCommand`), its `@example`, one its own doc gives (`e.g. 12`), in
 * the order `runtime/model/templateExamples.ts` reads them for a template's description; else
 * its first constant, its default, or one its type, format and bounds allow; the first of those
 * its schema accepts. Undefined when none is (a pattern the guesses miss): such a template gets
 * no example rather than a wrong one.
 */
export function exampleValue(
  variable: PlannedVariable,
  fromCommand?: string,
): ExampleValue | undefined {
  const { schema } = variable;
  const described = descriptionExamples(String(schema.description ?? ""), [variable.name]).get(
    variable.name,
  );
  const candidates = [
    fromCommand,
    ...(Array.isArray(schema.examples) ? [schema.examples[0]] : []),
    described,
    ...(Array.isArray(schema.enum) ? [schema.enum[0]] : []),
    schema.default,
    guessed(variable),
  ];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === null) continue;
    const value = typed(variable, String(candidate));
    if (value !== undefined && accepts(schema, value)) return { text: String(value), value };
  }
  return undefined;
}

/** Keywords that describe a value without constraining it (JSON Schema's annotations). */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
]);

/**
 * One schema object per set of constraints: the validator compiles a schema once per object,
 * and an app's variables mostly share a few (`{ type: "integer" }`), so a 2,000-command app
 * compiles a handful instead of one per variable. A variable's schema is a scalar's: its
 * constraints are its top-level keywords.
 */
const byConstraints = new Map<string, JsonSchema>();

/** Whether the runtime's argument validator accepts `value` for a variable of `schema`. */
function accepts(schema: JsonSchema, value: unknown): boolean {
  const constraints = Object.fromEntries(
    Object.entries(schema).filter(([keyword]) => !ANNOTATIONS.has(keyword)),
  );
  const key = JSON.stringify(constraints);
  let shared = byConstraints.get(key);
  if (!shared) byConstraints.set(key, (shared = constraints));
  return argumentValidator().validate(shared, value).length === 0;
}

/**
 * The examples of a template: its required variables alone, then with the optional variable
 * that says most of itself (an example in its description, else constants, else the first);
 * none when a required variable has no example.
 */
export function exampleUris(template: TemplatePlan): ExampleUri[] {
  // The command's description may give examples too ("from `from` to `to` (e.g. 2025-01-01 and
  // 2025-01-31)"), read as doctor reads them.
  const described = descriptionExamples(
    template.description,
    [...template.path, ...template.query].map((variable) => variable.name),
  );
  const exampleOf = (variable: PlannedVariable) =>
    exampleValue(variable, described.get(variable.name));
  const required = template.path.map((variable) => [variable, exampleOf(variable)] as const);
  if (required.some(([, example]) => example === undefined)) return [];
  const path = required.map(([, example]) => `/${percentEncode(example!.text)}`).join("");
  const values = Object.fromEntries(
    required.map(([variable, example]) => [variable.name, example!.value]),
  );
  const minimal = { uri: `${template.base}${path}`, values };
  const optional = pickOptional(template.query);
  const example = optional && exampleOf(optional);
  if (!optional || !example) return [minimal];
  return [
    minimal,
    {
      uri: `${minimal.uri}?${optional.name}=${percentEncode(example.text)}`,
      values: { ...values, [optional.name]: example.value },
    },
  ];
}

/** The words that introduce an example in a description, as `descriptionExamples` reads them. */
const GIVES_EXAMPLE = /\b(?:e\.g\.|for example|such as)/i;

function pickOptional(query: readonly PlannedVariable[]): PlannedVariable | undefined {
  return (
    query.find((variable) => GIVES_EXAMPLE.test(String(variable.schema.description ?? ""))) ??
    query.find((variable) => Array.isArray(variable.schema.enum)) ??
    query[0]
  );
}

/** A value the type, format and bounds of `variable` allow, when there is an obvious one. */
function guessed(variable: PlannedVariable): string | undefined {
  const { schema, kind } = variable;
  if (kind === "boolean") return "true";
  if (kind === "integer" || kind === "number") return String(lowest(schema) ?? 1);
  if (kind === "string")
    return typeof schema.format === "string" ? FORMAT_EXAMPLES[schema.format] : "example";
  return undefined;
}

/** The least value the bounds of a number allow (an integer one just above an exclusive bound). */
function lowest(schema: JsonSchema): number | undefined {
  if (typeof schema.minimum === "number") return schema.minimum;
  if (typeof schema.exclusiveMinimum === "number") return Math.floor(schema.exclusiveMinimum) + 1;
  if (typeof schema.maximum === "number") return Math.min(schema.maximum, 1);
  return undefined;
}

/** `text` as the value the variable's kind reads it as, or undefined when it does not read. */
function typed(variable: PlannedVariable, text: string): unknown {
  switch (variable.kind) {
    case "integer":
      return /^-?(0|[1-9][0-9]*)$/.test(text) && Number.isSafeInteger(Number(text))
        ? Number(text)
        : undefined;
    case "number":
      return isJsonNumberSyntax(text) ? Number(text) : undefined;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : undefined;
    default:
      return text;
  }
}
