import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProtocolError } from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { ERROR_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";

/** The example app on a fresh database, through the SDK client, on `protocol`. */
const connect = (protocol: (typeof PROTOCOLS)[number], transport: "memory" | "http" = "memory") =>
  testApp(createExampleApp(":memory:")).mcp({ protocol, transport });

type FieldErrors = { field: string; message: string }[];

async function refusedFields(request: Promise<unknown>): Promise<FieldErrors> {
  const error = await protocolError(request, -32602);
  return (error.data as { errors: FieldErrors }).errors;
}

/** The same values as a read's URI and as `tools/call` arguments, and the fields both must refuse. */
const refusals: {
  rule: string;
  uri: string;
  tool: string;
  args: Record<string, unknown>;
  errors: FieldErrors;
}[] = [
  {
    rule: "dates that are no dates (@format date), both at once",
    uri: "app://orders_between/a/b",
    tool: "orders_between",
    args: { from: "a", to: "b" },
    errors: [
      { field: "from", message: "must be a date written YYYY-MM-DD" },
      { field: "to", message: "must be a date written YYYY-MM-DD" },
    ],
  },
  {
    rule: "a calendar date that does not exist",
    uri: "app://orders_between/2025-02-01/2025-02-30",
    tool: "orders_between",
    args: { from: "2025-02-01", to: "2025-02-30" },
    errors: [{ field: "to", message: "is not a date in the calendar (February 2025 has 28 days)" }],
  },
  {
    rule: "a page size above its @maximum",
    uri: "app://customers_index?per_page=500",
    tool: "customers_index",
    args: { per_page: 500 },
    errors: [{ field: "per_page", message: "must be at most 100" }],
  },
  {
    rule: "a page below its @minimum",
    uri: "app://customers_index?page=0&per_page=0",
    tool: "customers_index",
    args: { page: 0, per_page: 0 },
    errors: [
      { field: "page", message: "must be at least 1" },
      { field: "per_page", message: "must be at least 1" },
    ],
  },
  {
    rule: "an id below its @minimum",
    uri: "app://customers_show/0",
    tool: "customers_show",
    args: { id: 0 },
    errors: [{ field: "id", message: "must be at least 1" }],
  },
];

for (const protocol of PROTOCOLS) {
  describe(`arguments the agent can see and the server enforces (${protocol})`, () => {
    it("tools/list publishes the constraints written in the types", async () => {
      const mcp = await connect(protocol);
      const tools = new Map(
        (await mcp.tools()).map((tool) => [
          tool.name,
          tool.inputSchema as { properties: Record<string, Record<string, unknown>> },
        ]),
      );
      assert.deepEqual(tools.get("orders_between")!.properties.from, {
        type: "string",
        format: "date",
        description: "The first day, `YYYY-MM-DD`.",
      });
      const perPage = tools.get("customers_index")!.properties.per_page!;
      assert.deepEqual(
        [perPage.type, perPage.minimum, perPage.maximum, perPage.default],
        ["integer", 1, 100, 20],
      );
      assert.equal(tools.get("customers_create")!.properties.email!.format, "email");
      await mcp.close();
    });

    for (const { rule, uri, tool, args, errors } of refusals) {
      it(`refuses ${rule} with the same fields on a read (-32602) and on tools/call (an isError result, SEP-1303), running nothing`, async () => {
        const mcp = await connect(protocol);
        assert.deepEqual(await refusedFields(mcp.read(uri)), errors);
        const call = await mcp.call(tool, args);
        assert.equal(call.isError, true);
        assert.deepEqual(call._meta?.[ERROR_META_KEY], { errors });
        const described = errors.map(({ field, message }) => `${field}: ${message}`).join("; ");
        assert.deepEqual(call.content, [
          {
            type: "text",
            text: `Invalid arguments for ${tool}: ${described}; change them and call ${tool} again`,
          },
        ]);
        await mcp.close();
      });
    }

    it("a URI with values that do not convert and values the schema refuses gets every error at once, in one -32602", async () => {
      const mcp = await connect(protocol);
      const cases: [string, FieldErrors][] = [
        [
          "app://customers_index?page=x&per_page=500",
          [
            { field: "page", message: 'must be an integer like 12; got "x"' },
            { field: "per_page", message: "must be at most 100" },
          ],
        ],
        [
          "app://customers_index?direction=up&page=0&sort=name",
          [
            { field: "direction", message: 'must be one of "asc", "desc"; got "up"' },
            { field: "page", message: "must be at least 1" },
          ],
        ],
        [
          "app://customers_show/x",
          [{ field: "id", message: 'must be an integer like 12; got "x"' }],
        ],
      ];
      for (const [uri, errors] of cases)
        assert.deepEqual(await refusedFields(mcp.read(uri)), errors, uri);
      await mcp.close();
    });

    it("a tool error for arguments leaves the server serving; an unknown tool and a malformed call stay protocol errors", async () => {
      for (const transport of ["memory", "http"] as const) {
        const mcp = await connect(protocol, transport);
        const wrongType = await mcp.call("customers_show", { id: "twelve", extra: 1 });
        assert.equal(wrongType.isError, true);
        assert.deepEqual(wrongType._meta?.[ERROR_META_KEY], {
          errors: [
            { field: "extra", message: "is not a parameter of this command" },
            { field: "id", message: "must be an integer" },
          ],
        });
        const unknown = await protocolError(mcp.call("no_such_tool", {}), -32602);
        assert.equal(unknown.message, "Unknown tool: no_such_tool");
        await protocolError(
          mcp.client.request({
            method: "tools/call",
            params: { name: "customers_show", arguments: "id=1" } as never,
          }),
          -32602,
        );
        assert.equal((await mcp.call("customers_show", { id: 1 })).isError, undefined);
        await mcp.close();
      }
    });

    it("a command's own refusal (to before from) is -32602 by field on a read, and a tool error naming the field on a call", async () => {
      const mcp = await connect(protocol);
      assert.deepEqual(
        await refusedFields(mcp.read("app://orders_between/2025-02-01/2025-01-01")),
        [{ field: "to", message: "is before from (2025-02-01)" }],
      );
      const call = await mcp.call("orders_between", { from: "2025-02-01", to: "2025-01-01" });
      assert.equal(call.isError, true);
      assert.deepEqual(call.content, [
        {
          type: "text",
          text: "Invalid arguments for orders_between: to: is before from (2025-02-01); change them and call orders_between again",
        },
      ]);
      assert.deepEqual(call._meta?.[ERROR_META_KEY], {
        errors: [{ field: "to", message: "is before from (2025-02-01)" }],
      });
      await mcp.close();
    });

    it("a failure that is no refusal (a customer that does not exist) stays -32603 with its message only", async () => {
      const mcp = await connect(protocol);
      const error = await protocolError(mcp.read("app://customers_show/99999"), -32603);
      assert.match(error.message, /no customer with id 99999/);
      assert.equal(error.data, undefined);
      await mcp.close();
    });

    it("a URI that does not validate is not watched: not honored by a listen, refused by a subscribe", async () => {
      const mcp = await connect(protocol);
      const listening = await mcp.listen([
        "app://customers_index?per_page=500",
        "app://customers_show/1",
        "app://orders_between/a/b",
      ]);
      assert.deepEqual(listening.honored, ["app://customers_show/1"]);
      assert.equal(mcp.live.stats().subscriptions, 1);
      await listening.close();
      await mcp.close();
    });

    it("completes search with the app's customer names, merged with nothing from the schema, capped at 100", async () => {
      const mcp = await connect(protocol);
      const template = "app://customers_index{?direction,page,per_page,search,sort}";
      const ada = await mcp.complete(template, "search", "Ada");
      assert.ok(
        ada.values.length > 0 && ada.values.every((name) => name.startsWith("Ada")),
        JSON.stringify(ada),
      );
      assert.equal(ada.hasMore, false);
      const every = await mcp.complete(template, "search", "");
      assert.deepEqual([every.values.length, every.total, every.hasMore], [100, 101, true]);
      const direction = await mcp.complete(template, "direction", "");
      assert.deepEqual(direction.values, ["asc", "desc"], "schema completion is unchanged");
      await mcp.close();
    });
  });
}

describe("the validation over Streamable HTTP", () => {
  for (const protocol of PROTOCOLS) {
    it(`answers -32602 with data.errors over HTTP too (${protocol})`, async () => {
      const mcp: McpTestClient = await connect(protocol, "http");
      assert.deepEqual(await refusedFields(mcp.read("app://customers_index?per_page=500")), [
        { field: "per_page", message: "must be at most 100" },
      ]);
      await mcp.close();
    });
  }
});

describe("a rejected request is a ProtocolError the client can act on", () => {
  it("carries the message a person reads: one line, the fields named", async () => {
    const mcp = await connect("2026-07-28");
    const error = await mcp.read("app://orders_between/a/b").catch((caught: unknown) => caught);
    assert.ok(error instanceof ProtocolError);
    assert.doesNotMatch(error.message, /\n/);
    assert.match(
      error.message,
      /from: must be a date written YYYY-MM-DD; to: must be a date written YYYY-MM-DD/,
    );
    await mcp.close();
  });
});
