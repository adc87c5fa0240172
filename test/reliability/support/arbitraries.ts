import fc from "fast-check";
import { templates, type TemplateName } from "../../../generated/templates.ts";
import { uris } from "../../../generated/uris.ts";
import type { TemplateVariable } from "../../../packages/livecmd/runtime/uri/template.ts";
import { schemaValue } from "../../helpers/schemaArbitrary.ts";

export const TEMPLATE_NAMES = Object.keys(templates) as TemplateName[];

/** A day of the example's orders (2024 and 2025), as `YYYY-MM-DD`, `offset` days after `ms`. */
const day = (ms: number, offset = 0) =>
  new Date(ms + offset * 86_400_000).toISOString().slice(0, 10);
const orderDay = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2025, 11, 31) });
/** Short ranges (a big one returns thousands of orders, twice per case), some reversed. */
const dateRange = fc
  .tuple(orderDay, fc.integer({ min: -2, max: 10 }))
  .map(([start, days]) => ({ from: day(start), to: day(start, days) }));
const anyString = (minLength: number) => fc.string({ unit: "binary", minLength, maxLength: 20 });

/** Values that find something in the example's data, mixed with arbitrary ones. */
const INTERESTING: Record<string, fc.Arbitrary<unknown>> = {
  id: fc.oneof(fc.integer({ min: 1, max: 2100 }), fc.maxSafeInteger()),
  page: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.maxSafeInteger()),
  per_page: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.maxSafeInteger()),
  search: fc.oneof(fc.constantFrom("ada", "Lovelace", "example.com", "%", "_", "'"), anyString(0)),
  min_total: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 2_000, max: 30_000 }) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  ),
};

/** Any value the variable's schema accepts and a URI can spell, often one that finds data. */
export function valueOf(variable: TemplateVariable): fc.Arbitrary<unknown> {
  return INTERESTING[variable.name] ?? schemaValue(variable, anyString);
}

/** Random valid variables of a template: path variables always, query variables sometimes. */
export function variablesOf(name: TemplateName): fc.Arbitrary<Record<string, unknown>> {
  const { variables } = templates[name];
  const required = variables
    .filter((variable) => variable.in === "path")
    .map((variable) => variable.name);
  const shape = Object.fromEntries(variables.map((variable) => [variable.name, valueOf(variable)]));
  const record = fc.record(shape, { requiredKeys: required, noNullPrototype: true });
  if (name !== "orders_between") return record;
  // Mostly real date ranges, so that most reads find orders; sometimes any strings.
  return fc
    .tuple(record, fc.option(dateRange, { freq: 4, nil: undefined }))
    .map(([vars, range]) => ({ ...vars, ...range }));
}

/** The URI `uris.<name>` builds for `vars`: what a client using the generated module sends. */
export function expand(name: TemplateName, vars: Record<string, unknown>): string {
  return (uris[name] as (vars: Record<string, unknown>) => string)(vars);
}

/** A valid URI of some template of the example. */
export const validUri: fc.Arbitrary<string> = fc
  .constantFrom(...TEMPLATE_NAMES)
  .chain((name) => variablesOf(name).map((vars) => expand(name, vars)));

/** Characters that mean something in a URI, or break decoding, or are not characters at all. */
const HOSTILE_CHARS = [
  "/",
  "?",
  "&",
  "=",
  "%",
  "#",
  "+",
  ";",
  ".",
  "%2F",
  "%00",
  "%C3",
  "%ZZ",
  "%E2%82",
  "é",
  "\uD800",
  "\uDC00",
  "\u0000",
  " ",
  "A",
  "1",
  "-",
  "e",
  "APP",
];

/** A valid URI with a few characters inserted, deleted or replaced: near misses. */
export const mutatedUri: fc.Arbitrary<string> = fc
  .tuple(
    validUri,
    fc.array(
      fc.tuple(
        fc.constantFrom("insert", "delete", "replace"),
        fc.nat(),
        fc.constantFrom(...HOSTILE_CHARS),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([uri, edits]) =>
    edits.reduce((text, [edit, at, chars]) => {
      const i = at % (text.length + 1);
      if (edit === "insert") return text.slice(0, i) + chars + text.slice(i);
      if (edit === "delete") return text.slice(0, i) + text.slice(i + 1);
      return text.slice(0, i) + chars + text.slice(i + 1);
    }, uri),
  );

/** Any string at all, and strings that start like a URI of the example then go astray. */
export const arbitraryUri: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc
    .string({ unit: fc.constantFrom(...HOSTILE_CHARS), maxLength: 30 })
    .map((rest) => `app://${rest}`),
  fc
    .tuple(
      fc.constantFrom(...TEMPLATE_NAMES),
      fc.string({
        unit: fc.oneof(
          fc.constantFrom(...HOSTILE_CHARS),
          fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
        ),
        maxLength: 40,
      }),
    )
    .map(([name, rest]) => `app://${name}${rest}`),
  mutatedUri,
);
