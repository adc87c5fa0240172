import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { JsonSchema } from "../../packages/livecmd-kit/generator/model.ts";
import type { TemplatePlan } from "../../packages/livecmd-kit/generator/plan/planCommand.ts";
import { printCode } from "../../packages/livecmd-kit/generator/render/layout/code.ts";
import { renderResultTypes } from "../../packages/livecmd-kit/generator/render/resultTypes.ts";
import { prettierFormat } from "../helpers/prettierOracle.ts";

/**
 * The result types are printed directly from result schemas of any shape; prettier is the
 * oracle: whatever the nesting, the unions and the text, formatting them changes nothing.
 */
const text = fc
  .string({ unit: fc.constantFrom(..."aZ \"'`\\*/${}é東😀-_.", "*/", "${x}"), maxLength: 120 })
  .map((value) => value.replace(/\s+/g, " ").trim());
const described = (schema: fc.Arbitrary<JsonSchema>): fc.Arbitrary<JsonSchema> =>
  fc
    .tuple(schema, fc.option(text, { nil: undefined }))
    .map(([inner, description]) => (description ? { ...inner, description } : inner));
const propertyName = fc.oneof(
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,40}$/),
  fc.constantFrom("with-dash", "has space", "1st", "é"),
);

const { schema } = fc.letrec<{ schema: JsonSchema; leaf: JsonSchema }>((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom<JsonSchema>(
      { type: "string" },
      { type: "integer" },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
      { type: ["string", "null"] },
      {},
    ),
    fc
      .uniqueArray(text, { minLength: 1, maxLength: 12 })
      .map((values): JsonSchema => ({ type: "string", enum: values })),
  ),
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    tie("schema").map((items): JsonSchema => ({ type: "array", items })),
    tie("schema").map((values): JsonSchema => ({ type: "object", additionalProperties: values })),
    fc
      .uniqueArray(fc.tuple(propertyName, described(tie("schema")), fc.boolean()), {
        selector: ([name]) => name,
        maxLength: 5,
      })
      .map((fields): JsonSchema => ({
        type: "object",
        properties: Object.fromEntries(fields.map(([name, field]) => [name, field])),
        required: fields.filter(([, , required]) => required).map(([name]) => name),
        additionalProperties: false,
      })),
    fc.array(tie("schema"), { minLength: 2, maxLength: 4 }).map((anyOf): JsonSchema => ({ anyOf })),
  ),
}));

const template = fc
  .tuple(fc.stringMatching(/^[a-z][a-z_]{0,60}$/), schema)
  .map(([name, result]): TemplatePlan => ({
    name,
    description: "",
    base: `app://${name}`,
    uriTemplate: `app://${name}/{id}`,
    path: [],
    query: [],
    args: [],
    result,
  }));

test("result types layout: random result schemas print as prettier prints them", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(template, { selector: (t) => t.name, minLength: 1, maxLength: 3 }),
      async (templates) => {
        const types = printCode(renderResultTypes(templates));
        assert.equal(await prettierFormat("uris.ts", types), types);
      },
    ),
    { numRuns: 300 },
  );
});
