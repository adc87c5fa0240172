import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { templates } from "../../generated/templates.ts";
import { uris } from "../../generated/uris.ts";
import type { CommandTemplate } from "../../packages/livecmd/runtime/uri/template.ts";
import { schemaValue } from "../helpers/schemaArbitrary.ts";

const RUNS = 2000;
const entries = Object.entries(templates) as [
  keyof typeof uris,
  CommandTemplate<Record<string, unknown>>,
][];

const graphemes = (minLength: number) => fc.string({ unit: "grapheme", minLength, maxLength: 30 });

function variablesOf(
  template: CommandTemplate<Record<string, unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  const required = template.variables
    .filter((variable) => variable.in === "path")
    .map((variable) => variable.name);
  const shape = Object.fromEntries(
    template.variables.map((variable) => [variable.name, schemaValue(variable, graphemes)]),
  );
  return fc.record(shape, { requiredKeys: required, noNullPrototype: true });
}

for (const [name, template] of entries) {
  test(`${name}: parse(expand(v)) gives back v for every valid v`, () => {
    const expand = uris[name] as (vars: Record<string, unknown>) => string;
    fc.assert(
      fc.property(variablesOf(template), (vars) => {
        assert.deepEqual(template.parse(expand(vars)), { ok: true, vars });
      }),
      { numRuns: RUNS },
    );
  });

  test(`${name}: parse never throws, and answers errors for what it rejects`, () => {
    const base = template.uriTemplate.replace(/[/{].*$/, "");
    const suffix = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({
        unit: fc.constantFrom(
          "/",
          "?",
          "&",
          "=",
          "%",
          "#",
          "+",
          "a",
          "1",
          "-",
          "2",
          "F",
          "é",
          "\uD800",
        ),
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          suffix.map((rest) => base + rest),
        ),
        (uri) => {
          const result = template.parse(uri);
          if (!result.ok)
            assert.ok(
              result.errors.length > 0 &&
                result.errors.every((error) => error.field && error.message),
            );
        },
      ),
      { numRuns: RUNS },
    );
  });
}

test("the example has a template for every command the issue lists", () => {
  assert.deepEqual(
    entries.map(([name, template]) => [name, template.uriTemplate]),
    [
      ["customers_index", "app://customers_index{?direction,page,per_page,search,sort}"],
      ["customers_show", "app://customers_show/{id}"],
      ["orders_between", "app://orders_between/{from}/{to}{?status}"],
      ["orders_flagged", "app://orders_flagged{?include_archived}"],
      ["orders_over", "app://orders_over/{min_total}{?status}"],
    ],
  );
});
