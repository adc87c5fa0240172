import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, type Progress } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { testApp, type ProtocolVersion } from "../../packages/livecmd/runtime/testing/index.ts";
import { emptyDatabase, postgresServer } from "../helpers/postgres.ts";
import { createSlowApp, type SlowRun } from "./fixtures/slowApp.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

/**
 * Calls slow_work with a progress token, waits for its first progress, then `whenProgressed`,
 * then cancels; returns what the client saw and how the command ended on the server.
 */
async function cancelMidway(
  database: Parameters<typeof createSlowApp>[0],
  protocol: ProtocolVersion,
  transport: "memory" | "http",
  whenProgressed: () => Promise<void> = async () => {},
): Promise<{ progress: Progress[]; callError: unknown; ended: unknown }> {
  const runs: SlowRun[] = [];
  const mcp = await testApp(createSlowApp(database, runs)).mcp({ protocol, transport });
  const cancel = new AbortController();
  const progress: Progress[] = [];
  let progressed!: () => void;
  const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
  const call = mcp.client.callTool(
    { name: "slow_work", arguments: {} },
    {
      signal: cancel.signal,
      onprogress: (update) => {
        progress.push(update);
        progressed();
      },
    },
  );
  await firstProgress;
  await whenProgressed();
  cancel.abort(new Error("the person stopped it"));
  const callError = await call.then(
    () => assert.fail("a cancelled call answered"),
    (error: unknown) => error,
  );
  const ended = await runs[0]!.ended;
  await mcp.close();
  return { progress, callError, ended };
}

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    describe(`progress and cancellation (${protocol}, ${transport})`, () => {
      it("on SQLite: ctx.progress reaches the client as notifications/progress, and a cancel stops the command between statements", async () => {
        const { progress, callError, ended } = await cancelMidway("sqlite", protocol, transport);
        assert.ok(progress.length >= 1);
        assert.deepEqual(progress[0], { progress: 1, message: "row 1" });
        for (let i = 1; i < progress.length; i++)
          assert.ok(progress[i]!.progress > progress[i - 1]!.progress, JSON.stringify(progress));
        assert.match(String(callError), /the person stopped it/);
        // The loop has no end of its own: only the aborted signal, checked before the next
        // statement, stopped it.
        assert.equal((ended as Error).name, "AbortError", String(ended));
        assert.match(
          (ended as Error).message,
          /^the request was cancelled \(.+\); no statement runs$/,
        );
      });

      const server = postgresServer();
      it(
        "on PostgreSQL: a cancel cancels the running statement (pg_cancel_backend)",
        { skip: server.skip },
        async () => {
          const url = await emptyDatabase(server.url!);
          const { progress, ended } = await cancelMidway(
            { postgres: url },
            protocol,
            transport,
            () => sleeping(url),
          );
          assert.deepEqual(progress, [{ progress: 0, total: 1, message: "sleeping for an hour" }]);
          // 57014: query_canceled, "canceling statement due to user request".
          assert.equal((ended as { code?: string }).code, "57014", String(ended));
        },
      );
    });
  }
}

describe("progress and cancellation through `livecmd serve` as a child process (stdio)", () => {
  for (const era of PROTOCOLS) {
    it(`reports progress and stops the command on a cancel (${era})`, async () => {
      const client = new Client(
        { name: "e2e", version: "0" },
        { versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" } },
      );
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            "packages/livecmd/bin/livecmd.js",
            "serve",
            "--app",
            "test/e2e/fixtures/slowSqliteApp.ts",
          ],
          stderr: "ignore",
        }),
      );
      const cancel = new AbortController();
      let progressed!: (update: Progress) => void;
      const firstProgress = new Promise<Progress>((resolve) => (progressed = resolve));
      const call = client.callTool(
        { name: "slow_work", arguments: {} },
        { signal: cancel.signal, onprogress: (update) => progressed(update) },
      );
      assert.deepEqual(await firstProgress, { progress: 1, message: "row 1" });
      cancel.abort(new Error("the person stopped it"));
      await assert.rejects(call, /the person stopped it/);
      const ended = (await client.callTool({ name: "slow_ended", arguments: {} })) as {
        content: { text: string }[];
      };
      assert.match(
        JSON.parse(ended.content[0]!.text) as string,
        /^AbortError: the request was cancelled \(.+\); no statement runs$/,
      );
      await client.close();
    });
  }
});

/** Resolves once the slow statement is running on the server (it shows in pg_stat_activity). */
async function sleeping(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query = 'SELECT pg_sleep(3600)'",
      );
      if ((rows[0] as { n: number }).n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}
