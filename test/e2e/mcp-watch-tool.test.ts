import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Progress,
} from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp, staticTokens } from "../../packages/livecmd/runtime/server/index.ts";
import {
  LAST_MODIFIED_META_KEY,
  VERSION_META_KEY,
} from "../../packages/livecmd/runtime/model/resultMeta.ts";
import { MAX_WATCH_WAIT_MS } from "../../packages/livecmd/runtime/model/watchTool.ts";
import {
  testApp,
  type McpTestClient,
  type WatchAnswer,
} from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";
import { servedExample, type Era } from "../helpers/servedExample.ts";
import { tokensFile } from "../helpers/tokensFile.ts";
import { ERROR_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";

const WATCH = "watch_resources";
const SHOW_12 = "app://customers_show/12";
const SHOW_13 = "app://customers_show/13";

/** Whether a promise has settled yet, read at any time. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled(): boolean } {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { promise, settled: () => settled };
}

/** Resolves on the first progress notification: the watch has answered nothing and is waiting. */
function waitingSignal(): { onprogress: (progress: Progress) => void; waiting: Promise<void> } {
  let started!: () => void;
  const waiting = new Promise<void>((resolve) => (started = resolve));
  return { onprogress: () => started(), waiting };
}

async function eventually(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The methods a client sends from now on: an agent of a tools-only host sends no `resources/*`. */
function sentMethods(client: Client): string[] {
  const methods: string[] = [];
  const transport = client.transport!;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ("method" in message) methods.push(message.method);
    return send(message, options);
  };
  return methods;
}

function onlyTools(methods: readonly string[]): void {
  assert.deepEqual(
    methods.filter((method) => /^(resources|subscriptions)\//.test(method)),
    [],
    "a tools-only client never calls resources/* nor listens",
  );
}

async function rename(mcp: McpTestClient, id: number, name: string): Promise<void> {
  await renameVia(mcp.client, id, name);
}

async function renameVia(client: Client, id: number, name: string): Promise<void> {
  const result = await client.callTool({ name: "customers_rename", arguments: { id, name } });
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
}

function toolError(result: CallToolResult): { text: string; data: unknown } {
  assert.equal(result.isError, true, JSON.stringify(result));
  return {
    text: result.content.map((part) => ("text" in part ? part.text : "")).join(""),
    data: result._meta?.[ERROR_META_KEY],
  };
}

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    describe(`the watch tool on ${protocol} over ${transport} (stdio's entry in memory, or HTTP)`, () => {
      const connect = async () => {
        const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol, transport });
        // Listed first, so the SDK client holds each answer to the tool's outputSchema.
        await mcp.tools();
        return mcp;
      };

      it("is listed as read-only and idempotent, with its output schema", async () => {
        const mcp = await connect();
        const tool = (await mcp.tools()).find((each) => each.name === WATCH);
        assert.deepEqual(tool?.annotations, {
          title: "Watch resources",
          readOnlyHint: true,
          idempotentHint: true,
        });
        assert.equal(tool?.outputSchema?.type, "object");
        await mcp.close();
      });

      it("answers at once, without a version, with the contents and the version a read and a call carry", async () => {
        const mcp = await connect();
        const answer = await mcp.watch([SHOW_12]);
        assert.equal(answer.status, "changed");
        const [change] = answer.changed;
        assert.equal(change?.uri, SHOW_12);
        assert.equal((change?.value as { name: string }).name, "Carlos Horvat");
        assert.deepEqual(answer.resources, [{ uri: SHOW_12, version: change!.version }]);
        assert.equal(await mcp.version(SHOW_12), change!.version);
        const call = await mcp.call("customers_show", { id: 12 });
        assert.equal(call._meta?.[VERSION_META_KEY], change!.version);
        await mcp.close();
      });

      it("stamps reads and live calls with the version, and with lastModified once it saw a change", async () => {
        const mcp = await connect();
        const listening = await mcp.listen([SHOW_12]);
        const meta = async () => (await mcp.read(SHOW_12)).contents[0]!._meta!;
        const before = await meta();
        assert.equal(before[LAST_MODIFIED_META_KEY], undefined, "no change seen yet");
        await rename(mcp, 12, "Twelve");
        assert.equal(await listening.updates.next(), SHOW_12);
        const after = await meta();
        assert.notEqual(after[VERSION_META_KEY], before[VERSION_META_KEY]);
        assert.match(String(after[LAST_MODIFIED_META_KEY]), /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
        const call = await mcp.call("customers_show", { id: 12 });
        assert.equal(call._meta?.[VERSION_META_KEY], after[VERSION_META_KEY]);
        assert.deepEqual((call.content[0] as { annotations?: unknown }).annotations, {
          lastModified: after[LAST_MODIFIED_META_KEY],
        });
        const write = await mcp.call("customers_rename", { id: 13, name: "Thirteen" });
        assert.equal(write._meta?.[VERSION_META_KEY], undefined, "a write's result has no version");
        await mcp.close();
      });

      it("ends a waiting call with the new contents on a write to customer 12, and not on one to customer 13", async () => {
        const mcp = await connect();
        const methods = sentMethods(mcp.client);
        const { version } = (await mcp.watch([SHOW_12])).resources[0]!;
        const { onprogress, waiting } = waitingSignal();
        const before = mcp.live.stats();
        const call = tracked(
          mcp.watch([{ uri: SHOW_12, version }], { timeoutMs: 10_000, onprogress }),
        );
        await waiting;
        await rename(mcp, 13, "Thirteen");
        await mcp.live.settled();
        assert.equal(call.settled(), false, "a write to customer 13 leaves the watch waiting");
        assert.equal(mcp.live.stats().reruns, before.reruns, "nothing that read 13 is watched");
        await rename(mcp, 12, "Twelve");
        const answer = await call.promise;
        assert.equal(answer.status, "changed");
        assert.equal((answer.changed[0]?.value as { name: string }).name, "Twelve");
        assert.notEqual(answer.resources[0]!.version, version);
        assert.match(answer.changed[0]!.lastModified!, /^\d{4}-\d\d-\d\dT/);
        assert.equal(mcp.live.stats().reruns - before.reruns, 1, "one re-run for the write");
        onlyTools(methods);
        await eventually(() => mcp.live.stats().subscriptions === 0, "the watch is released");
        await mcp.close();
      });

      it("answers at once for a stale version, and for a URI given without one", async () => {
        const mcp = await connect();
        const stale = (await mcp.watch([SHOW_12])).resources[0]!.version;
        await rename(mcp, 12, "Twelve");
        const started = performance.now();
        const answer = await mcp.watch([{ uri: SHOW_12, version: stale }, SHOW_13], {
          timeoutMs: 10_000,
        });
        assert.ok(performance.now() - started < 5000, "a stale version is answered at once");
        assert.deepEqual(
          answer.changed.map((change) => change.uri),
          [SHOW_12, SHOW_13],
          "13 had no version: news too",
        );
        await mcp.close();
      });

      it('answers "unchanged" after the wait it was given', async () => {
        const mcp = await connect();
        const { resources } = await mcp.watch([SHOW_12, SHOW_13]);
        const started = performance.now();
        const answer = await mcp.watch(resources, { timeoutMs: 300 });
        const waited = performance.now() - started;
        assert.deepEqual(answer, { status: "unchanged", changed: [], resources });
        assert.ok(waited >= 290, `waited ${waited} ms`);
        await mcp.close();
      });

      it("tells a client that asked how long it has waited, while it waits", async () => {
        const mcp = await connect();
        const { resources } = await mcp.watch([SHOW_12]);
        const progress: Progress[] = [];
        await mcp.watch(resources, { timeoutMs: 1000, onprogress: (each) => progress.push(each) });
        assert.ok(progress.length >= 3, `${progress.length} progress notifications`);
        assert.equal(progress[0]!.total, 1000);
        assert.match(progress[0]!.message!, /^no change yet in 1 URI; waited \d+ of 1000 ms$/);
        assert.ok(
          progress.every((each, at) => at === 0 || each.progress > progress[at - 1]!.progress),
          "progress grows",
        );
        await mcp.close();
      });

      it("ends at once when the client cancels, releasing what it watched", async () => {
        const mcp = await connect();
        const { resources } = await mcp.watch([SHOW_12]);
        const { onprogress, waiting } = waitingSignal();
        const cancel = new AbortController();
        const call = mcp.watch(resources, { timeoutMs: 20_000, signal: cancel.signal, onprogress });
        await waiting;
        assert.equal(mcp.live.stats().subscriptions, 1);
        cancel.abort();
        await assert.rejects(call);
        await eventually(() => mcp.live.stats().subscriptions === 0, "the watch is released", 1000);
        await mcp.close();
      });

      it("refuses more URIs than a connection may watch, as a tool error with the limit", async () => {
        const mcp = await connect();
        const uris = Array.from({ length: 65 }, (_, i) => ({
          uri: `app://customers_show/${i + 1}`,
        }));
        const refused = toolError(await mcp.call(WATCH, { resources: uris }));
        assert.match(
          refused.text,
          /^Subscription limit reached: the number of URIs one connection may watch is 64; .* nothing is watched/,
        );
        assert.deepEqual(refused.data, { limit: 64, scope: "perConnection" });
        assert.equal((await mcp.watch(uris.slice(0, 64))).changed.length, 64);
        assert.equal(mcp.live.stats().subscriptions, 0);
        await mcp.close();
      });

      it("refuses URIs a read refuses, naming each with its read's error, and watches none", async () => {
        const mcp = await connect();
        const bad = [
          "app://customers_show/abc",
          "app://customers_export",
          "app://customers_index?serch=ada",
        ];
        const refused = toolError(
          await mcp.call(WATCH, { resources: [SHOW_12, ...bad].map((uri) => ({ uri })) }),
        );
        const errors = (refused.data as { errors: { uri: string; message: string }[] }).errors;
        assert.deepEqual(
          errors.map((error) => error.uri),
          bad,
        );
        assert.match(errors[0]!.message, /^Invalid URI app:\/\/customers_show\/abc: id: /);
        assert.equal(errors[1]!.message, "Resource not found: app://customers_export");
        for (const uri of bad) assert.ok(refused.text.includes(uri), uri);
        assert.equal(mcp.live.stats().subscriptions, 0);
        const invalid = toolError(await mcp.call(WATCH, { resources: [], timeoutMs: 60_000 }));
        assert.match(invalid.text, /^Invalid arguments for watch_resources: /);
        await mcp.close();
      });
    });
  }
}

describe("the watch tool over HTTP, across principals and the server's life", () => {
  it("costs one re-run for two principals waiting on one URI", async () => {
    const file = tokensFile(
      "first-secret-0123 customers:write # first\nsecond-secret-0123 customers:write # second\n",
    );
    // On SQLite even in CI's PostgreSQL pass: there this case counts 2 groups, not 1 (open, #33).
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(file),
    });
    const clients = await Promise.all(
      ["first-secret-0123", "second-secret-0123"].map(async (token) => {
        const client = new Client(
          { name: "watch", version: "0" },
          { versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        await client.connect(
          new StreamableHTTPClientTransport(serving.url, {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          }),
        );
        return client;
      }),
    );
    const watch = async (client: Client, args: Record<string, unknown>) =>
      (await client.callTool({ name: WATCH, arguments: args })).structuredContent as WatchAnswer;
    const { resources } = await watch(clients[0]!, { resources: [{ uri: SHOW_12 }] });
    const before = serving.live.stats();
    const waiting = clients.map((client) => watch(client, { resources, timeoutMs: 10_000 }));
    await eventually(() => serving.live.stats().subscriptions === 2, "both wait");
    assert.equal(serving.live.stats().groups, before.groups + 1, "one group for both principals");
    await clients[0]!.callTool({ name: "customers_rename", arguments: { id: 12, name: "Twelve" } });
    for (const answer of await Promise.all(waiting)) assert.equal(answer.status, "changed");
    assert.equal(serving.live.stats().reruns - before.reruns, 1);
    for (const client of clients) await client.close();
    await serving.close();
  });

  it("counts a waiting call as a listen: past the listens the server holds, a tool error", async () => {
    // On SQLite even in CI's PostgreSQL pass: there the second call is not refused (open, #33).
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      limits: { listensTotal: 1 },
    });
    const client = new Client({ name: "watch", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(serving.url));
    const first = await client.callTool({
      name: WATCH,
      arguments: { resources: [{ uri: SHOW_12 }] },
    });
    const { resources } = first.structuredContent as WatchAnswer;
    const held = client.callTool({ name: WATCH, arguments: { resources, timeoutMs: 5000 } });
    await eventually(() => serving.live.stats().subscriptions === 1, "the first waits");
    const refused = toolError(
      (await client.callTool({
        name: WATCH,
        arguments: { resources: [{ uri: SHOW_13 }] },
      })) as CallToolResult,
    );
    assert.match(refused.text, /^Subscription limit reached: the number of listens .* is 1; /);
    assert.equal((refused.data as { limit: number }).limit, 1);
    await serving.close();
    assert.equal(((await held).structuredContent as WatchAnswer).status, "unchanged");
    await client.close();
  });

  it("answers a waiting call at once when the server drains", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
    const client = new Client({ name: "watch", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(serving.url));
    const first = await client.callTool({
      name: WATCH,
      arguments: { resources: [{ uri: SHOW_12 }] },
    });
    const resources = (first.structuredContent as WatchAnswer).resources;
    const held = client.callTool({ name: WATCH, arguments: { resources, timeoutMs: 20_000 } });
    await eventually(() => serving.live.stats().subscriptions === 1, "the call waits");
    const started = performance.now();
    await serving.close();
    assert.equal(((await held).structuredContent as WatchAnswer).status, "unchanged");
    assert.ok(performance.now() - started < 5000, "answered when the drain began");
    await client.close();
  });
});

for (const era of ["2026-07-28", "2025-11-25"] as Era[]) {
  for (const transport of ["stdio", "http"] as const) {
    it(`\`livecmd serve\` over ${transport} (${era}): a tools-only client keeps an eye on customer 12`, async () => {
      const served = await servedExample(era, transport);
      try {
        const { client } = served;
        const methods = sentMethods(client);
        const tools = (await client.listTools()).tools;
        assert.ok(tools.some((tool) => tool.name === WATCH));
        const call = async (args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
          (
            await client.callTool(
              { name: WATCH, arguments: args },
              onprogress && { onprogress, resetTimeoutOnProgress: true },
            )
          ).structuredContent as WatchAnswer;
        const now = await call({ resources: [{ uri: SHOW_12 }] });
        assert.equal((now.changed[0]?.value as { id: number }).id, 12);
        const { onprogress, waiting } = waitingSignal();
        const waited = tracked(
          call({ resources: now.resources, timeoutMs: MAX_WATCH_WAIT_MS }, onprogress),
        );
        await waiting;
        await renameVia(client, 13, "Thirteen");
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(waited.settled(), false, "a write to 13 leaves it waiting");
        await renameVia(client, 12, "Twelve");
        const answer = await waited.promise;
        assert.equal((answer.changed[0]?.value as { name: string }).name, "Twelve");
        const unchanged = await call({ resources: answer.resources, timeoutMs: 200 });
        assert.equal(unchanged.status, "unchanged");
        onlyTools(methods);
      } finally {
        await served.close();
      }
    });
  }
}
