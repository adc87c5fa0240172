import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { compile, type JSONSchema } from "json-schema-to-typescript";
import { createProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import type { TemplatePlan } from "../../packages/livecmd-kit/generator/plan/planCommand.ts";
import type { PlannedVariable } from "../../packages/livecmd-kit/generator/plan/planVariables.ts";
import { variablesTypeName } from "../../packages/livecmd-kit/generator/plan/naming.ts";
import { printCode } from "../../packages/livecmd-kit/generator/render/layout/code.ts";
import {
  renderVariableTypes,
  variableDoc,
} from "../../packages/livecmd-kit/generator/render/renderTypes.ts";
import { root, scratchDir } from "../helpers/cli.ts";
import { writeHostileApp } from "../helpers/hostileApp.ts";
import { prettierFormat } from "../helpers/prettierOracle.ts";

/**
 * The variables' interfaces are written directly (json-schema-to-typescript took a second at
 * 2,000 commands); json-schema-to-typescript stays the oracle: given the published schemas, it
 * must produce, once prettier has formatted it, exactly what the generator writes.
 */
async function oracleTypes(templates: TemplatePlan[]): Promise<string> {
  const root: JSONSchema = {
    title: "TemplateVariables",
    description: "The variables of every resource template, by command name.",
    type: "object",
    additionalProperties: false,
    required: templates.map((template) => template.name),
    properties: Object.fromEntries(
      templates.map((template) => [template.name, variablesSchema(template)]),
    ),
  };
  const raw = await compile(root, "TemplateVariables", {
    bannerComment: "",
    format: false,
    additionalProperties: false,
    declareExternallyReferenced: true,
    strictIndexSignatures: true,
    unreachableDefinitions: false,
  });
  return prettierFormat("types.ts", raw);
}

function variablesSchema(template: TemplatePlan): JSONSchema {
  const variables = [...template.path, ...template.query];
  return {
    title: variablesTypeName(template.name),
    description: `The variables of \`${template.uriTemplate}\`.`,
    type: "object",
    additionalProperties: false,
    required: template.path.map((variable) => variable.name),
    properties: Object.fromEntries(
      variables.map((variable) => [variable.name, oracleSchema(variable)]),
    ),
  };
}

/**
 * An integer variable is livecmd's branded `Int`; json-schema-to-typescript is told so with
 * `tsType`. Constraints are doc tags after the description, which it is handed whole.
 */
function oracleSchema(variable: PlannedVariable): JSONSchema {
  const description = variableDoc(variable.schema);
  const schema = {
    ...(variable.schema as JSONSchema),
    ...(description !== undefined && { description }),
  };
  return variable.kind === "integer" ? { ...schema, tsType: "Int" } : schema;
}

async function assertSameAsOracle(templates: TemplatePlan[]): Promise<void> {
  const types = printCode(renderVariableTypes(templates));
  if (templates.length === 0) return assert.equal(types, "");
  assert.equal(types, await oracleTypes(templates));
}

async function templatesOf(appFile: string): Promise<TemplatePlan[]> {
  const generation = await generate(createProject(), { appFile, cwd: root });
  assert.ok(generation.ok, "the app generates");
  return generation.plan.templates;
}

const fixtures = path.join(root, "test/fixtures");
const apps = [
  "example/app.ts",
  // Every fixture that generates: one that expects diagnostics has no types to compare.
  ...(await readdir(fixtures))
    .sort()
    .filter((name) => !existsSync(path.join(fixtures, name, "expected/diagnostics.txt")))
    .map((name) => `test/fixtures/${name}/app/app.ts`),
];
for (const app of apps) {
  test(`variable types oracle: ${app} types as json-schema-to-typescript + prettier give them`, async () => {
    await assertSameAsOracle(await templatesOf(app));
  });
}

test("variable types oracle: the hostile app", async () => {
  const app = await writeHostileApp(await scratchDir("hostile-types-"));
  await assertSameAsOracle(await templatesOf(path.relative(root, app)));
});

/** Names without digits: json-schema-to-typescript capitalises a letter after a digit in type names. */
const identifier = fc.stringMatching(/^[a-z_][a-z_]{0,30}$/);
const text = fc
  .string({ unit: fc.constantFrom(..."aZ \"'`\\*/${}é東😀-_.", "*/", "${x}"), maxLength: 140 })
  .map((value) => value.replace(/\s+/g, " ").trim());
const variable: fc.Arbitrary<PlannedVariable> = fc
  .record({
    name: identifier,
    required: fc.boolean(),
    kind: fc.constantFrom("string", "integer", "number", "boolean", "enum" as const),
    values: fc.uniqueArray(
      text.filter((value) => value.length > 0),
      { minLength: 1, maxLength: 12 },
    ),
    description: fc.option(
      text.filter((value) => value.length > 0),
      { nil: undefined },
    ),
  })
  .map(({ name, required, kind, values, description }) => ({
    name,
    required,
    kind,
    param: 0,
    schema: {
      type: kind === "enum" ? "string" : kind,
      ...(kind === "enum" && { enum: values }),
      ...(description !== undefined && { description }),
    },
  }));
const template: fc.Arbitrary<TemplatePlan> = fc
  .record({
    name: identifier,
    variables: fc.uniqueArray(variable, { selector: (v) => v.name, minLength: 1, maxLength: 6 }),
  })
  .map(({ name, variables }) => {
    const path = variables.filter((v) => v.required);
    const query = variables.filter((v) => !v.required);
    const uriTemplate = `app://${name}${path.map((v) => `/{${v.name}}`).join("")}${query.length > 0 ? `{?${query.map((v) => v.name).join(",")}}` : ""}`;
    return {
      name,
      description: "",
      base: `app://${name}`,
      uriTemplate,
      path,
      query,
      args: [],
      result: {},
    };
  });

test("variable types oracle: random variables, descriptions and enums", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(template, {
        selector: (t) => variablesTypeName(t.name),
        minLength: 1,
        maxLength: 3,
      }),
      async (templates) => assertSameAsOracle(templates),
    ),
    { numRuns: 150 },
  );
});
