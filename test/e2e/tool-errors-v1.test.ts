import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createExampleApp } from "../../example/app.ts";
import { ERROR_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";

/**
 * Tool errors a model must read, called on tools that publish an `outputSchema`: each keeps its
 * text, and says to code what it refused in `_meta`, never in `structuredContent`.
 */
const REFUSED_CALLS = [
  {
    rule: "arguments the schema refuses",
    name: "customers_show",
    args: { id: "twelve" },
    text: /^Invalid arguments for customers_show: id: must be an integer; change them/,
    data: { errors: [{ field: "id", message: "must be an integer" }] },
  },
  {
    rule: "arguments the command itself refuses",
    name: "orders_between",
    args: { from: "2025-02-01", to: "2025-01-01" },
    text: /^Invalid arguments for orders_between: to: is before from \(2025-02-01\)/,
    data: { errors: [{ field: "to", message: "is before from (2025-02-01)" }] },
  },
  {
    rule: "a URI the watch tool cannot watch",
    name: "watch_resources",
    args: { resources: [{ uri: "app://nowhere/1" }] },
    text: /^Cannot watch this URI, so nothing is watched: app:\/\/nowhere\/1: Resource not found/,
    data: { errors: [{ uri: "app://nowhere/1", message: "Resource not found: app://nowhere/1" }] },
  },
] as const;

describe("a client that checks every result against the tool's outputSchema, errors too (the SDK v1 Client, the MCP Inspector)", () => {
  let serving: Awaited<ReturnType<typeof serveHttp>>;
  let client: ClientV1;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:", { sqlite: true }), { port: 0 });
    client = new ClientV1({ name: "tool-errors-v1", version: "0" });
    await client.connect(new StreamableHTTPClientTransportV1(serving.url));
    // listTools is what makes the v1 Client validate the results of the tools it lists.
    const { tools } = await client.listTools();
    for (const { name } of REFUSED_CALLS)
      assert.ok(
        tools.find((tool) => tool.name === name)?.outputSchema,
        `${name} has an outputSchema`,
      );
  });
  after(async () => {
    await client.close();
    await serving.close();
  });

  for (const { rule, name, args, text, data } of REFUSED_CALLS) {
    it(`reads the tool error for ${rule}: its text, and what it refused in _meta`, async () => {
      const result = await client.callTool({ name, arguments: args });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      const [content] = result.content as { type: string; text: string }[];
      assert.match(content!.text, text);
      assert.deepEqual((result._meta as Record<string, unknown>)[ERROR_META_KEY], data);
    });
  }
});
