import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createExampleApp } from "../../example/app.ts";
import {
  checkResult,
  ResultMismatch,
  testApp,
} from "../../packages/livecmd/runtime/testing/index.ts";
import driftedApp from "./fixtures/driftedResultApp.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

const SERVE_DRIFTED = [
  "packages/livecmd/bin/livecmd.js",
  "serve",
  "--app",
  "test/e2e/fixtures/driftedResultApp.ts",
];
const DRIFT =
  /customers_show returned a result that does not match its result type \(email: is required; id: must be an integer\)/;

/** A stdio child serving the drifted app with `env`, and what it wrote on stderr. */
async function serveDrifted(
  env: Record<string, string>,
  protocol: (typeof PROTOCOLS)[number],
): Promise<{ client: Client; stderr: () => string }> {
  const client = new Client(
    { name: "e2e", version: "0" },
    { versionNegotiation: { mode: protocol === "2026-07-28" ? { pin: protocol } : "legacy" } },
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: SERVE_DRIFTED,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe("results checked against their result type", () => {
  it("checkResult (livecmd/testing) names the command and every field that does not match", async () => {
    const app = createExampleApp(":memory:");
    const good = await app.run("customers_show", [1], { origin: "app" as never });
    assert.doesNotThrow(() => checkResult(app, "customers_show", good));
    const bad = { ...(good as object), id: "1", extra: true };
    assert.throws(
      () => checkResult(app, "customers_show", bad),
      (error: unknown) =>
        error instanceof ResultMismatch &&
        error.command === "customers_show" &&
        /id: must be an integer/.test(error.message) &&
        /extra: is not in the command's result type/.test(error.message),
    );
    // A list result is checked item by item, in its JSON form.
    assert.throws(
      () => checkResult(app, "orders_between", [{ id: 1 }]),
      /orders_between returned a result .*0\.customer_id: is required/,
    );
    assert.throws(() => checkResult(app, "nowhere", {}), /has no command "nowhere"/);
  });

  for (const protocol of PROTOCOLS) {
    it(`with LIVECMD_CHECK_RESULTS=1 a served read fails with the mismatch, and the server keeps serving (${protocol}, stdio)`, async () => {
      const { client, stderr } = await serveDrifted({ LIVECMD_CHECK_RESULTS: "1" }, protocol);
      try {
        const error = await client.readResource({ uri: "app://customers_show/1" }).then(
          () => assert.fail("the drifted read succeeded"),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.code, -32603);
        assert.match(error.message, DRIFT);
        const called = await client.callTool({ name: "customers_show", arguments: { id: 1 } });
        assert.equal(called.isError, true);
        assert.match((called.content as { text: string }[])[0]!.text, DRIFT);
        const page = await client.readResource({ uri: "app://customers_index?per_page=1" });
        assert.match((page.contents[0] as { text: string }).text, /"total":/);
        assert.match(stderr(), DRIFT);
      } finally {
        await client.close();
      }
    });
  }

  it("without LIVECMD_CHECK_RESULTS the server sends what the command returned", async () => {
    const { client } = await serveDrifted({}, "2026-07-28");
    try {
      const read = await client.readResource({ uri: "app://customers_show/1" });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).id, "1");
    } finally {
      await client.close();
    }
  });

  it("the test client checks results when told to", async () => {
    const checked = await testApp(driftedApp).mcp({
      protocol: "2026-07-28",
      checkResults: true,
      onerror: () => {},
    });
    try {
      await assert.rejects(checked.read("app://customers_show/1"), DRIFT);
    } finally {
      await checked.close();
    }
    const unchecked = await testApp(driftedApp).mcp({ protocol: "2026-07-28" });
    try {
      const read = await unchecked.read("app://customers_show/1");
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).id, "1");
    } finally {
      await unchecked.close();
    }
  });
});
