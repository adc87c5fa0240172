import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ResourceNotFoundError } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { expand } from "./fixtures/fixtureTemplate.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { createShopApp } from "./fixtures/shopApp.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";

const reads = [
  ["a path variable", "app://customers_show/2", { id: 2, name: "Grace Hopper" }],
  [
    "query variables in any order",
    "app://customers_index?search=a&direction=desc",
    [
      { id: 3, name: "Alan Turing" },
      { id: 2, name: "Grace Hopper" },
      { id: 1, name: "Ada Lovelace" },
    ],
  ],
  [
    "a percent-encoded value",
    "app://customers_index?search=ADA%20L",
    [{ id: 1, name: "Ada Lovelace" }],
  ],
  [
    "the plain resource of a command whose variables are all optional",
    "app://customers_index",
    [
      { id: 1, name: "Ada Lovelace" },
      { id: 2, name: "Grace Hopper" },
      { id: 3, name: "Alan Turing" },
    ],
  ],
  [
    "the plain resource of a command without arguments",
    "app://server_time",
    { now: "2026-01-01T00:00:00Z" },
  ],
] as const;

const badUris = [
  [
    "every bad query field at once",
    "app://customers_index?serch=a&direction=up&page=1.5",
    ["serch", "direction", "page"],
  ],
  ["a path value of the wrong type", "app://customers_show/abc", ["id"]],
  ["a missing path segment", "app://customers_show", ["uri"]],
  ["an extra path segment", "app://customers_show/1/2", ["uri"]],
  ["variables on a command that takes none", "app://server_time/now", ["uri"]],
  ["a value the published schema rejects (minimum: 1)", "app://customers_show/0", ["id"]],
] as const;

const notFound = [
  ["a command that does not exist", "app://customers_nowhere/1"],
  ["a live command not granted to the agent", "app://orders_between/2026-01-01/2026-02-01"],
  ["a granted command that needs confirmation", "app://customers_delete/1"],
  ["a granted command that is not live", "app://customers_rename/1/Ada"],
  ["another scheme", "other://customers_show/1"],
  ["no command name", "app://"],
] as const;

for (const protocol of PROTOCOLS) {
  describe(`resources/read on ${protocol}`, () => {
    for (const [what, uri, expected] of reads) {
      it(`reads ${what}`, async () => {
        const mcp = await testApp(createShopApp().app).mcp({ protocol });
        const { contents } = await mcp.read(uri);
        assert.equal(contents.length, 1);
        assert.equal(contents[0]?.uri, uri);
        assert.equal(contents[0]?.mimeType, "application/json");
        assert.deepEqual(JSON.parse((contents[0] as { text: string }).text), expected);
        await mcp.close();
      });
    }

    it("runs the command as the agent, through the app's middleware", async () => {
      const { app, invocations } = createShopApp();
      const mcp = await testApp(app).mcp({ protocol });
      await mcp.read("app://customers_show/3");
      assert.deepEqual(
        invocations.map((invocation) => [invocation.command, invocation.origin, invocation.args]),
        [["customers_show", Origin.Agent, [3]]],
      );
      await mcp.close();
    });

    for (const [what, uri, fields] of badUris) {
      it(`rejects ${what} with -32602 listing every bad field`, async () => {
        const { app, invocations } = createShopApp();
        const mcp = await testApp(app).mcp({ protocol });
        const error = await protocolError(mcp.read(uri), -32602);
        const data = error.data as { uri: string; errors: { field: string; message: string }[] };
        assert.equal(data.uri, uri);
        assert.deepEqual(
          data.errors.map((e) => e.field),
          fields,
        );
        for (const e of data.errors) assert.ok(e.message.length > 0);
        assert.deepEqual(invocations, [], "the command must not run");
        await mcp.close();
      });
    }

    it("answers unknown, ungranted, confirm-only and tool-only commands identically: -32602 resource not found", async () => {
      const mcp = await testApp(createShopApp().app).mcp({ protocol });
      const answers = [];
      for (const [, uri] of notFound) {
        const error = await protocolError(mcp.read(uri), -32602);
        assert.ok(error instanceof ResourceNotFoundError, `${uri}: ${error.message}`);
        assert.deepEqual(error.data, { uri });
        answers.push({
          message: error.message.replace(uri, "<uri>"),
          data: Object.keys(error.data as object),
        });
      }
      assert.deepEqual(
        answers,
        notFound.map(() => ({ message: "Resource not found: <uri>", data: ["uri"] })),
      );
      await mcp.close();
    });

    it("reports a command that throws as an error of the read, not as content", async () => {
      const mcp = await testApp(createShopApp().app).mcp({ protocol });
      const error = await protocolError(mcp.read("app://customers_show/99"), -32603);
      assert.match(error.message, /no customer 99/);
      await mcp.close();
    });
  });
}

describe("read and call are one path", () => {
  const text = fc.string({ unit: "grapheme", maxLength: 12 });
  const integer = fc.oneof(
    fc.integer(),
    fc.constant(Number.MAX_SAFE_INTEGER),
    fc.constant(-Number.MAX_SAFE_INTEGER),
  );
  const cases = [
    {
      tool: "customers_index",
      vars: fc.record(
        {
          direction: fc.constantFrom("asc", "desc"),
          page: integer,
          search: text,
          vip: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    },
    {
      tool: "orders_between",
      vars: fc.record(
        { from: text, to: text, status: fc.constantFrom("open", "paid", "void") },
        { requiredKeys: ["from", "to"] },
      ),
    },
  ];
  for (const protocol of PROTOCOLS) {
    for (const { tool, vars } of cases) {
      it(`gives the ${tool} handler the same arguments and the agent the same result for random values (${protocol})`, async () => {
        const { app, invocations } = createShopApp();
        app.grant(app.commands.get("orders_between")!);
        const template = engineOf(app).generated!.templates[tool]!;
        const mcp = await testApp(app).mcp({ protocol });
        await fc.assert(
          fc.asyncProperty(vars, async (values) => {
            invocations.length = 0;
            const uri = expand(template, values);
            const read = await mcp.read(uri);
            const call = await mcp.call(tool, values);
            assert.equal(invocations.length, 2);
            assert.deepStrictEqual(invocations[0]!.args, invocations[1]!.args);
            assert.equal(
              (read.contents[0] as { text: string }).text,
              (call.content[0] as { text: string }).text,
            );
          }),
          { numRuns: 150 },
        );
        await mcp.close();
      });
    }
  }
});
