import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { Client, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioClientTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// Real server processes started the way a user starts them, and clients this project did not write.
const SERVE = ["--import", "tsx", "test/e2e/fixtures/serveEntry.ts", "serve", "--app", "test/e2e/fixtures/shopAppModule.ts"];
const SHOW_1 = { id: 1, name: "Ada Lovelace" };
const TEMPLATES = ["app://customers_index{?direction,page,search,vip}", "app://customers_show/{id}", "app://quota_show/{id}"];

function textOf(result: { contents: unknown[] }): unknown {
  return JSON.parse((result.contents[0] as { text: string }).text);
}

async function startHttpServer(): Promise<{ url: URL; process: ChildProcess }> {
  const child = spawn(process.execPath, [...SERVE, "--http", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.setEncoding("utf8");
  for await (const chunk of child.stdout!) {
    out += chunk;
    const match = /^livecmd: serving app "app" at (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
    if (match) return { url: new URL(match[1]!), process: child };
  }
  throw new Error(`the server exited without printing its URL: ${out}`);
}

async function statusWithHost(url: URL, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { host, "content-type": "application/json" } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("error", reject);
    req.end("{}");
  });
}

describe("the SDK v2 Client against `livecmd serve` on stdio", () => {
  for (const [era, negotiation] of [
    ["modern", { mode: { pin: "2026-07-28" } }],
    ["legacy", { mode: "legacy" }],
  ] as const) {
    it(`lists templates, reads an expanded URI and gets -32602 for a typo (${era})`, async () => {
      const client = new Client({ name: "e2e", version: "0" }, { versionNegotiation: negotiation });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: SERVE, stderr: "ignore" }));
      assert.equal(client.getProtocolEra(), era);
      assert.deepEqual((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate), TEMPLATES);
      assert.deepEqual(textOf(await client.readResource({ uri: "app://customers_show/1" })), SHOW_1);
      const error = await client.readResource({ uri: "app://customers_index?serch=ada" }).catch((e: unknown) => e);
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, -32602);
      assert.deepEqual((error.data as { errors: { field: string }[] }).errors.map((e) => e.field), ["serch"]);
      await client.close();
    });
  }
});

describe("clients against `livecmd serve --http 0`", () => {
  it("prints its URL, serves the SDK v2 Client (2026-07-28) and the v1 Client (2025) side by side, and checks Host", async () => {
    const server = await startHttpServer();
    try {
      const modern = new Client({ name: "e2e", version: "0" }, { versionNegotiation: { mode: "auto" } });
      await modern.connect(new StreamableHTTPClientTransport(server.url));
      assert.equal(modern.getNegotiatedProtocolVersion(), "2026-07-28");
      assert.deepEqual(textOf(await modern.readResource({ uri: "app://customers_show/1" })), SHOW_1);

      const v1 = new ClientV1({ name: "e2e-v1", version: "0" });
      await v1.connect(new StreamableHTTPClientTransportV1(server.url));
      assert.deepEqual((await v1.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate), TEMPLATES);
      assert.deepEqual(textOf(await v1.readResource({ uri: "app://customers_show/1" })), SHOW_1);
      assert.deepEqual(await v1.complete({ ref: { type: "ref/resource", uri: TEMPLATES[0]! }, argument: { name: "direction", value: "d" } }), {
        completion: { values: ["desc"], total: 1, hasMore: false },
      });
      await modern.close();
      await v1.close();
      assert.equal(await statusWithHost(server.url, "evil.example"), 403, "a Host other than localhost is refused (DNS rebinding)");
    } finally {
      server.process.kill("SIGTERM");
      await once(server.process, "exit");
    }
  });
});

describe("the v1 @modelcontextprotocol/sdk Client against `livecmd serve` on stdio", () => {
  it("lists, reads and calls on the 2025 era", async () => {
    const client = new ClientV1({ name: "e2e-v1", version: "0" });
    await client.connect(new StdioClientTransportV1({ command: process.execPath, args: SERVE, stderr: "ignore" }));
    assert.deepEqual((await client.listResources()).resources.map((r) => r.uri), ["app://customers_index", "app://server_time"]);
    assert.deepEqual(textOf(await client.readResource({ uri: "app://customers_show/1" })), SHOW_1);
    const call = await client.callTool({ name: "customers_show", arguments: { id: 1 } });
    assert.deepEqual(JSON.parse((call.content as { text: string }[])[0]!.text), SHOW_1);
    await client.close();
  });
});

describe("the MCP Inspector CLI against `livecmd serve` on stdio", () => {
  const inspector = (...method: string[]) =>
    promisify(execFile)("node_modules/.bin/mcp-inspector", ["--cli", process.execPath, ...SERVE, ...method], { timeout: 30_000 });

  it("lists the resource templates", async () => {
    const { stdout } = await inspector("--method", "resources/templates/list");
    assert.deepEqual((JSON.parse(stdout) as { resourceTemplates: { uriTemplate: string }[] }).resourceTemplates.map((t) => t.uriTemplate), TEMPLATES);
  });

  it("reads app://customers_show/1", async () => {
    const { stdout } = await inspector("--method", "resources/read", "--uri", "app://customers_show/1");
    assert.deepEqual(textOf(JSON.parse(stdout) as { contents: unknown[] }), SHOW_1);
  });
});
