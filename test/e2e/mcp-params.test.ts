import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { initialize } from "../helpers/rawStreams.ts";

const RESOURCE_REF = {
  type: "ref/resource",
  uri: "app://customers_index{?direction,page,per_page,search,sort}",
};
const SEARCH = { name: "search", value: "a" };

/**
 * Requests whose params have the wrong shape, and the param each answer must name: -32602 in
 * one line (`Invalid params for <method>: <param> ...`), never -32603, never a zod dump.
 * `legacyOnly`: methods the 2026-07-28 era does not have.
 */
const WRONG_PARAMS: {
  method: string;
  params: Record<string, unknown>;
  names: string;
  legacyOnly?: true;
}[] = [
  { method: "resources/read", params: { uri: 123 }, names: "params.uri must be a string" },
  { method: "resources/read", params: { uri: null }, names: "params.uri must be a string" },
  {
    method: "resources/read",
    params: { uri: { href: "app://customers_show/1" } },
    names: "params.uri must be a string",
  },
  {
    method: "resources/read",
    params: { uri: ["app://customers_show/1"] },
    names: "params.uri must be a string",
  },
  { method: "resources/read", params: { uri: true }, names: "params.uri must be a string" },
  { method: "resources/read", params: {}, names: "params.uri is required" },
  { method: "resources/list", params: { cursor: 7 }, names: "params.cursor must be a string" },
  { method: "resources/list", params: { cursor: {} }, names: "params.cursor must be a string" },
  { method: "resources/list", params: { cursor: false }, names: "params.cursor must be a string" },
  {
    method: "resources/templates/list",
    params: { cursor: 1 },
    names: "params.cursor must be a string",
  },
  {
    method: "resources/templates/list",
    params: { cursor: [] },
    names: "params.cursor must be a string",
  },
  { method: "tools/list", params: { cursor: 2 }, names: "params.cursor must be a string" },
  { method: "tools/list", params: { cursor: null }, names: "params.cursor must be a string" },
  { method: "tools/call", params: { name: 5 }, names: "params.name must be a string" },
  { method: "tools/call", params: { name: null }, names: "params.name must be a string" },
  { method: "tools/call", params: {}, names: "params.name is required" },
  {
    method: "tools/call",
    params: { name: "customers_show", arguments: "id=1" },
    names: "params.arguments must be an object",
  },
  {
    method: "tools/call",
    params: { name: "customers_show", arguments: [1] },
    names: "params.arguments must be an object",
  },
  {
    method: "completion/complete",
    params: {},
    names: "params.ref is required; params.argument is required",
  },
  {
    method: "completion/complete",
    params: { ref: "customers_index", argument: SEARCH },
    names: "params.ref must be an object",
  },
  {
    method: "completion/complete",
    params: { ref: { type: "ref/nothing" }, argument: SEARCH },
    names: 'params.ref.type must be one of "ref/resource", "ref/prompt"',
  },
  {
    method: "completion/complete",
    params: { ref: { uri: "x" }, argument: SEARCH },
    names: "params.ref.type is required",
  },
  {
    method: "completion/complete",
    params: { ref: { type: "ref/resource", uri: 1 }, argument: SEARCH },
    names: "params.ref.uri must be a string",
  },
  {
    method: "completion/complete",
    params: { ref: RESOURCE_REF, argument: { name: 1, value: "a" } },
    names: "params.argument.name must be a string",
  },
  {
    method: "completion/complete",
    params: { ref: RESOURCE_REF, argument: { name: "search" } },
    names: "params.argument.value is required",
  },
  {
    method: "completion/complete",
    params: { ref: RESOURCE_REF, argument: "search" },
    names: "params.argument must be an object",
  },
  {
    method: "completion/complete",
    params: { ref: RESOURCE_REF, argument: SEARCH, context: { arguments: { page: 2 } } },
    names: "params.context.arguments.page must be a string",
  },
  {
    method: "completion/complete",
    params: { ref: RESOURCE_REF, argument: SEARCH, context: "page=2" },
    names: "params.context must be an object",
  },
  {
    method: "completion/complete",
    params: { ref: { type: "ref/resource" }, argument: SEARCH },
    names: "params.ref.uri is required",
  },
  {
    method: "completion/complete",
    params: { ref: { type: "ref/prompt" }, argument: SEARCH },
    names: "params.ref.name is required",
  },
  {
    method: "tools/call",
    params: { name: "customers_show", arguments: { id: 1 }, task: "soon" },
    names: "params.task must be an object",
    legacyOnly: true,
  },
  {
    method: "resources/subscribe",
    params: { uri: 5 },
    names: "params.uri must be a string",
    legacyOnly: true,
  },
  { method: "resources/subscribe", params: {}, names: "params.uri is required", legacyOnly: true },
  {
    method: "resources/subscribe",
    params: { uri: null },
    names: "params.uri must be a string",
    legacyOnly: true,
  },
  {
    method: "resources/unsubscribe",
    params: { uri: [] },
    names: "params.uri must be a string",
    legacyOnly: true,
  },
];

function assertOneLine(method: string, names: string, code: number, message: string): void {
  assert.equal(code, -32602, message);
  assert.equal(message, `Invalid params for ${method}: ${names}`);
}

describe("the table of wrong-typed params", () => {
  it("has at least 30 rows, over every method livecmd answers", () => {
    assert.ok(WRONG_PARAMS.length >= 30);
    assert.equal(new Set(WRONG_PARAMS.map((row) => row.method)).size, 8);
  });
});

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    describe(`wrong-typed params through the SDK client (${protocol}, ${transport})`, () => {
      for (const { method, params, names, legacyOnly } of WRONG_PARAMS) {
        if (legacyOnly && protocol === "2026-07-28") continue;
        it(`${method} ${JSON.stringify(params)}: -32602 naming ${names.split(" ")[0]}`, async () => {
          const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol, transport });
          const error = await protocolError(
            mcp.client.request({ method, params } as never),
            -32602,
          );
          assertOneLine(method, names, error.code, error.message);
          await mcp.close();
        });
      }
    });
  }
}

/** One JSON-RPC request over plain HTTP, as a client other than the SDK's might send it. */
async function post(
  url: URL,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; message: { error?: { code: number; message: string } } }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  // A response may come as an SSE stream: a priming event (empty data), then the message.
  const json = text.startsWith("{") ? text : (/^data: (.+)$/m.exec(text)?.[1] ?? "null");
  return {
    status: response.status,
    message: JSON.parse(json) as { error?: { code: number; message: string } },
  };
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
};

describe("wrong-typed params over raw HTTP", () => {
  it("2025 era, in a session: every row answers -32602 in one line", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
    try {
      const initialize = await fetch(serving.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "0" },
          },
        }),
      });
      const session = initialize.headers.get("mcp-session-id")!;
      await initialize.text();
      const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      await post(serving.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      for (const [index, { method, params, names }] of WRONG_PARAMS.entries()) {
        const { message } = await post(
          serving.url,
          { jsonrpc: "2.0", id: index + 1, method, params },
          headers,
        );
        assertOneLine(method, names, message.error!.code, message.error!.message);
      }
    } finally {
      await serving.close();
    }
  });

  it("2026-07-28, with the envelope and the headers the era asks for: every row of the era answers -32602 in one line", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
    try {
      for (const [index, { method, params, names, legacyOnly }] of WRONG_PARAMS.entries()) {
        if (legacyOnly) continue;
        const named =
          method === "resources/read"
            ? params.uri
            : method === "tools/call"
              ? params.name
              : undefined;
        const headers = {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(named !== undefined && {
            "mcp-name": typeof named === "string" ? named : JSON.stringify(named),
          }),
        };
        const { message } = await post(
          serving.url,
          { jsonrpc: "2.0", id: index + 1, method, params: { ...params, _meta: ENVELOPE } },
          headers,
        );
        assert.ok(message.error, `${method} ${JSON.stringify(params)}: ${JSON.stringify(message)}`);
        assertOneLine(method, names, message.error.code, message.error.message);
      }
    } finally {
      await serving.close();
    }
  });
});

/**
 * Requests whose params as a whole, or whose `_meta`, have the wrong shape: the SDK would call
 * them no JSON-RPC message (-32600) and could not tell their era. `modern`: the params on
 * the 2026-07-28 era, where the envelope rides in it.
 */
const WRONG_ENVELOPES: { method: string; params: unknown; modern: unknown; names: string }[] = [
  { method: "tools/list", params: "all", modern: "all", names: "params must be an object" },
  {
    method: "resources/read",
    params: ["app://customers_show/1"],
    modern: ["app://customers_show/1"],
    names: "params must be an object",
  },
  { method: "ping", params: 7, modern: 7, names: "params must be an object" },
  {
    method: "tools/list",
    params: { _meta: 5 },
    modern: { _meta: 5 },
    names: "params._meta must be an object",
  },
  {
    method: "tools/call",
    params: { name: "customers_show", arguments: { id: 1 }, _meta: { progressToken: {} } },
    modern: {
      name: "customers_show",
      arguments: { id: 1 },
      _meta: { ...ENVELOPE, progressToken: {} },
    },
    names: "params._meta.progressToken must be a string or an integer",
  },
];

describe("wrong-shaped params and _meta over raw HTTP, both eras", () => {
  it("answers -32602 in one line naming the param, in a 2025 session and on 2026-07-28", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
    try {
      const session = await initialize(serving.url);
      const legacy = { "mcp-session-id": session.session!, "mcp-protocol-version": "2025-11-25" };
      for (const [index, { method, params, modern, names }] of WRONG_ENVELOPES.entries()) {
        const inSession = await post(
          serving.url,
          { jsonrpc: "2.0", id: index, method, params },
          legacy,
        );
        assertOneLine(
          method,
          names,
          inSession.message.error!.code,
          inSession.message.error!.message,
        );
        const headers = {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(method === "tools/call" && { "mcp-name": "customers_show" }),
        };
        const stateless = await post(
          serving.url,
          { jsonrpc: "2.0", id: index, method, params: modern },
          headers,
        );
        assert.equal(stateless.status, 400);
        assertOneLine(
          method,
          names,
          stateless.message.error!.code,
          stateless.message.error!.message,
        );
      }
    } finally {
      await serving.close();
    }
  });

  it("a 2025 initialize with wrong params is -32602 naming them, with or without a session", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
    try {
      const params = { protocolVersion: 2025, capabilities: {}, clientInfo: { name: "raw" } };
      const names =
        "params.protocolVersion must be a string; params.clientInfo.version is required";
      const first = await post(
        serving.url,
        { jsonrpc: "2.0", id: 1, method: "initialize", params },
        {},
      );
      assert.equal(first.status, 400);
      assertOneLine("initialize", names, first.message.error!.code, first.message.error!.message);
      const session = await initialize(serving.url);
      const again = await post(
        serving.url,
        { jsonrpc: "2.0", id: 2, method: "initialize", params },
        { "mcp-session-id": session.session!, "mcp-protocol-version": "2025-11-25" },
      );
      assertOneLine("initialize", names, again.message.error!.code, again.message.error!.message);
    } finally {
      await serving.close();
    }
  });
});
