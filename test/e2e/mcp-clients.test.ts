import assert from "node:assert/strict";
import { lineEnvironment } from "../helpers/lineEnvironment.ts";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { Client, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioClientTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { INSPECTOR_VERSION, inspectorCommand } from "../helpers/peerTools.ts";
import { root } from "../helpers/cli.ts";

// The example app, served by real processes started the way a user starts them, to clients this
// project did not write. Each server gets a fresh in-memory database.
const SERVE = ["packages/livecmd/bin/livecmd.js", "serve", "--app", "example/app.ts"];
const FRESH_DATABASE = { LIVECMD_EXAMPLE_DB: ":memory:" };
const TEMPLATES = [
  "app://customers_index{?direction,page,per_page,search,sort}",
  "app://customers_show/{id}",
  "app://orders_between/{from}/{to}{?status}",
  "app://orders_flagged{?include_archived}",
  "app://orders_over/{min_total}{?status}",
];

/** The customer a read or call returned, down to what identifies it. */
function customerIn(text: string): { id: unknown; name: unknown } {
  const { id, name } = JSON.parse(text) as { id: unknown; name: unknown };
  return { id, name };
}
const ADA = { id: 1, name: "Ada Lovelace" };

function textOf(result: { contents: unknown[] }): { id: unknown; name: unknown } {
  return customerIn((result.contents[0] as { text: string }).text);
}

async function startHttpServer(): Promise<{ url: URL; process: ChildProcess }> {
  const child = spawn(process.execPath, [...SERVE, "--http", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...FRESH_DATABASE },
  });
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
    const req = request(
      url,
      { method: "POST", headers: { host, "content-type": "application/json" } },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
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
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: SERVE,
          env: { ...lineEnvironment(), ...FRESH_DATABASE },
          stderr: "ignore",
        }),
      );
      assert.equal(client.getProtocolEra(), era);
      assert.deepEqual(
        (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        TEMPLATES,
      );
      assert.deepEqual(textOf(await client.readResource({ uri: "app://customers_show/1" })), ADA);
      const error = await client
        .readResource({ uri: "app://customers_index?serch=ada" })
        .catch((e: unknown) => e);
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, -32602);
      assert.match(JSON.stringify(error.data), /serch/);
      await client.close();
    });
  }
});

describe("clients against `livecmd serve --http 0`", () => {
  it("prints its URL, serves the SDK v2 Client (2026-07-28) and the v1 Client (2025) side by side, and checks Host", async () => {
    const server = await startHttpServer();
    try {
      const modern = new Client(
        { name: "e2e", version: "0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await modern.connect(new StreamableHTTPClientTransport(server.url));
      assert.equal(modern.getNegotiatedProtocolVersion(), "2026-07-28");
      assert.deepEqual(textOf(await modern.readResource({ uri: "app://customers_show/1" })), ADA);

      const v1 = new ClientV1({ name: "e2e-v1", version: "0" });
      await v1.connect(new StreamableHTTPClientTransportV1(server.url));
      assert.deepEqual(
        (await v1.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        TEMPLATES,
      );
      assert.deepEqual(textOf(await v1.readResource({ uri: "app://customers_show/1" })), ADA);
      assert.deepEqual(
        await v1.complete({
          ref: { type: "ref/resource", uri: TEMPLATES[0]! },
          argument: { name: "direction", value: "d" },
        }),
        {
          completion: { values: ["desc"], total: 1, hasMore: false },
        },
      );
      await modern.close();
      await v1.close();
      assert.equal(
        await statusWithHost(server.url, "evil.example"),
        403,
        "a Host other than localhost is refused (DNS rebinding)",
      );
    } finally {
      server.process.kill("SIGTERM");
      await once(server.process, "exit");
    }
  });
});

describe("the v1 @modelcontextprotocol/sdk Client against `livecmd serve` on stdio", () => {
  it("lists, reads and calls on the 2025 era", async () => {
    const client = new ClientV1({ name: "e2e-v1", version: "0" });
    await client.connect(
      new StdioClientTransportV1({
        command: process.execPath,
        args: SERVE,
        env: { ...lineEnvironment(), ...FRESH_DATABASE },
        stderr: "ignore",
      }),
    );
    try {
      assert.deepEqual(
        (await client.listResources()).resources.map((r) => r.uri),
        // The agent skill's SKILL.md follows the app's resources; the commands' live views are
        // not listed, since this client did not declare the MCP Apps extension.
        ["app://customers_index", "app://orders_flagged", "skill://app/SKILL.md"],
      );
      assert.deepEqual(textOf(await client.readResource({ uri: "app://customers_show/1" })), ADA);
      const call = await client.callTool({ name: "customers_show", arguments: { id: 1 } });
      assert.deepEqual(customerIn((call.content as { text: string }[])[0]!.text), ADA);
    } finally {
      await client.close();
    }
  });
});

describe("the MCP Inspector CLI against `livecmd serve` on stdio", () => {
  const [node22, inspectorCli] = inspectorCommand();
  const inspector = (...method: string[]) =>
    promisify(execFile)(
      node22,
      [
        inspectorCli,
        "--cli",
        ...Object.entries({ ...lineEnvironment(), ...FRESH_DATABASE }).flatMap(([name, value]) => [
          "-e",
          `${name}=${value}`,
        ]),
        process.execPath,
        ...SERVE,
        ...method,
      ],
      { timeout: 30_000 },
    );

  it("lists the resource templates", async () => {
    const { stdout } = await inspector("--method", "resources/templates/list");
    assert.deepEqual(
      (
        JSON.parse(stdout) as { resourceTemplates: { uriTemplate: string }[] }
      ).resourceTemplates.map((t) => t.uriTemplate),
      TEMPLATES,
    );
  });

  it("reads app://customers_show/1", async () => {
    const { stdout } = await inspector(
      "--method",
      "resources/read",
      "--uri",
      "app://customers_show/1",
    );
    assert.deepEqual(textOf(JSON.parse(stdout) as { contents: unknown[] }), ADA);
  });

  it("calls the watch tool as docs/mcp.md prints it", async () => {
    const docs = await readFile(path.join(root, "docs/mcp.md"), "utf8");
    const line = docs
      .split("\n")
      .find(
        (each) =>
          each.startsWith(`npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} `) &&
          each.includes(" watch_resources "),
      );
    assert.ok(line, "docs/mcp.md prints an Inspector call of the watch tool");
    const printed = shellWords(
      line.slice(line.indexOf("npx livecmd serve") + "npx livecmd serve".length),
    );
    const { stdout } = await inspector(...printed);
    const answer = JSON.parse(stdout) as {
      structuredContent: { status: string; changed: { uri: string; value: unknown }[] };
    };
    assert.equal(answer.structuredContent.status, "changed");
    assert.deepEqual(customerIn(JSON.stringify(answer.structuredContent.changed[0]!.value)), ADA);
  });
});

/** The words of a shell command line: split at spaces, single quotes kept together, as sh reads it. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map(([, quoted, bare]) => quoted ?? bare!);
}
