import assert from "node:assert/strict";
import { test } from "node:test";
import type {
  CommandDecl,
  JsonSchema,
  ParamDecl,
} from "../../packages/livecmd-kit/generator/model.ts";
import { buildCatalog } from "../../packages/livecmd-kit/generator/plan/buildCatalog.ts";
import { planCommand } from "../../packages/livecmd-kit/generator/plan/planCommand.ts";
import { listings } from "../../packages/livecmd/runtime/model/catalog.ts";

const at = { file: "app.ts", line: 1, column: 1 };
const int: JsonSchema = { type: "integer" };
const str: JsonSchema = { type: "string" };
const status: JsonSchema = { type: "string", enum: ["pending", "paid"] };
const struct = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

function param(name: string, schema: JsonSchema, optional = false, typeText = "T"): ParamDecl {
  return { name, schema, optional, typeText, location: at };
}

function command(
  name: string,
  params: ParamDecl[],
  options: Partial<CommandDecl> = {},
): CommandDecl {
  return {
    name,
    live: true,
    confirm: false,
    granted: true,
    annotations: {},
    description: `${name}.`,
    mimeType: "application/json",
    params,
    result: {},
    location: at,
    ...options,
  };
}

const rules: {
  rule: string;
  command: CommandDecl;
  template: string | null;
  resource: string | null;
  reason?: RegExp;
}[] = [
  {
    rule: "a scalar argument is one path variable named after it",
    command: command("show", [param("id", int)]),
    template: "app://show/{id}",
    resource: null,
  },
  {
    rule: "required variables are path segments in argument order",
    command: command("between", [
      param("from", str),
      param("to", str),
      param("status", status, true),
    ]),
    template: "app://between/{from}/{to}{?status}",
    resource: null,
  },
  {
    rule: "an optional scalar goes to the query",
    command: command("flagged", [param("archived", { type: "boolean" }, true)]),
    template: "app://flagged{?archived}",
    resource: "app://flagged",
  },
  {
    rule: "a struct's fields flatten one level deep, in code-unit name order",
    command: command("index", [
      param("query", struct({ sort: status, Page: int, direction: str, search: str })),
    ]),
    template: "app://index{?Page,direction,search,sort}",
    resource: "app://index",
  },
  {
    rule: "a required field of a required struct is a path variable",
    command: command("find", [param("q", struct({ id: int, name: str }, ["id"]))]),
    template: "app://find/{id}{?name}",
    resource: null,
  },
  {
    rule: "every field of an optional struct is optional",
    command: command("find", [param("q", struct({ id: int }, ["id"]), true)]),
    template: "app://find{?id}",
    resource: "app://find",
  },
  {
    rule: "a nullable scalar is still a scalar",
    command: command("nick", [param("nickname", { type: ["string", "null"] })]),
    template: "app://nick/{nickname}",
    resource: null,
  },
  {
    rule: "a live command without arguments keeps only its plain resource",
    command: command("all", []),
    template: null,
    resource: "app://all",
  },
  {
    rule: "a command that is not live has neither, and no reason",
    command: command("rename", [param("id", int)], { live: false }),
    template: null,
    resource: null,
  },
  {
    rule: "a confirm-only command is never a resource, and says so",
    command: command("delete", [param("id", int)], { confirm: true }),
    template: null,
    resource: null,
    reason: /needs confirmation/,
  },
  {
    rule: "a list makes the command a tool only",
    command: command("tagged", [param("tags", { type: "array", items: str }, false, "string[]")]),
    template: null,
    resource: null,
    reason: /argument "tags" \(string\[\]\) is a list/,
  },
  {
    rule: "a map makes the command a tool only",
    command: command("attrs", [
      param(
        "attrs",
        { type: "object", additionalProperties: str },
        false,
        "Record<string, string>",
      ),
    ]),
    template: null,
    resource: null,
    reason: /"attrs" \(Record<string, string>\) is a map/,
  },
  {
    rule: "a nested object field makes the command a tool only",
    command: command("report", [
      param("filter", struct({ balance: struct({ min: int }) }), false, "ReportFilter"),
    ]),
    template: null,
    resource: null,
    reason: /field "balance", a nested object/,
  },
  {
    rule: "a union of objects makes the command a tool only",
    command: command("shape", [param("s", { anyOf: [struct({ a: str }), struct({ b: int })] })]),
    template: null,
    resource: null,
    reason: /a union of objects/,
  },
  {
    rule: "unknown makes the command a tool only",
    command: command("any", [param("value", {}, false, "unknown")]),
    template: null,
    resource: null,
    reason: /\(unknown\) is a value with no fixed type/,
  },
  {
    rule: "two variables with one name make the command a tool only",
    command: command("search", [param("query", struct({ page: int })), param("page", int)]),
    template: null,
    resource: null,
    reason: /two variables are named "page"/,
  },
  {
    rule: "an enum of numbers is not a scalar",
    command: command("level", [param("level", { type: "number", enum: [1, 2] })]),
    template: null,
    resource: null,
    reason: /enum of numbers/,
  },
];

for (const { rule, command: decl, template, resource, reason } of rules) {
  test(`plan: ${rule}`, () => {
    const { entry } = planCommand(decl, "app");
    assert.equal(entry.template, template);
    assert.equal(entry.resource, resource);
    if (reason) assert.match(entry.reason ?? "", reason);
    else assert.equal(entry.reason, null);
  });
}

test("plan: a single struct parameter is the tool's whole inputSchema; otherwise one property per parameter", () => {
  const single = planCommand(
    command("index", [param("query", struct({ search: str }))]),
    "app",
  ).entry;
  assert.deepEqual(single.arguments, { kind: "object" });
  assert.deepEqual(single.inputSchema, struct({ search: str }));
  const positional = planCommand(
    command("between", [param("from", str), param("status", status, true)]),
    "app",
  ).entry;
  assert.deepEqual(positional.arguments, { kind: "positional", names: ["from", "status"] });
  assert.deepEqual(positional.inputSchema, {
    type: "object",
    properties: { from: str, status },
    required: ["from"],
    additionalProperties: false,
  });
});

test("plan: the rebuild puts struct fields back in their object, and an optional struct may be left out", () => {
  const { template } = planCommand(
    command("find", [param("id", int), param("q", struct({ b: str, a: str }), true)]),
    "app",
  );
  assert.deepEqual(template?.args, [
    { kind: "variable", name: "id" },
    { kind: "struct", fields: ["a", "b"], orUndefined: true },
  ]);
});

test("catalog: the listings hold granted commands only, and resources never hold a template", () => {
  const { catalog } = buildCatalog({
    name: "app",
    watchTool: "watch_resources",
    file: "app.ts",
    commands: [
      command("index", [param("q", struct({ s: str }))]),
      command("hidden", [param("id", int)], { granted: false }),
      command("show", [param("id", int)]),
    ],
  });
  const listed = listings(catalog.commands, (entry) => entry.granted, catalog.watchTool);
  assert.deepEqual(
    listed.resources.map((r) => r.uri),
    ["app://index"],
  );
  assert.deepEqual(
    listed.resourceTemplates.map((t) => t.uriTemplate),
    ["app://index{?s}", "app://show/{id}"],
  );
  assert.deepEqual(
    listed.tools.map((t) => t.name),
    ["index", "show", "watch_resources"],
  );
  assert.deepEqual(
    catalog.commands.map((c) => [c.name, c.granted]),
    [
      ["index", true],
      ["hidden", false],
      ["show", true],
    ],
  );
  assert.ok(listed.resources.every((r) => !r.uri.includes("{")));
});
