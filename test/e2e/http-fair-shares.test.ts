import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { after, before, describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { DEFAULT_SUBSCRIPTION_LIMITS } from "../../packages/livecmd/runtime/live/limitDefaults.ts";
import {
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../../packages/livecmd/runtime/server/index.ts";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { GIVE_WAY_AFTER_MS } from "../../packages/livecmd/runtime/live/liveRoom.ts";
import type { WatchAnswer } from "../../packages/livecmd/runtime/testing/index.ts";
import { INITIALIZE, initialize } from "../helpers/rawStreams.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

interface Answer {
  status: number;
  session: string | undefined;
  /** The JSON-RPC message, out of its event stream when it came as one. */
  message: { error?: { code: number; message: string; data?: unknown } };
}

/**
 * A client that sends every request over one kept-alive TCP connection, as one runaway local
 * process would: what an endpoint without auth counts it by.
 */
function oneConnection(url: URL): {
  post(body: string, session?: string): Promise<Answer>;
  close(): void;
} {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<string>();
  const post = (body: string, session?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const sent = request(
        url,
        {
          method: "POST",
          agent,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(session !== undefined && {
              "mcp-session-id": session,
              "mcp-protocol-version": "2025-11-25",
            }),
          },
        },
        (response) => {
          sockets.add(`${response.socket.localPort}`);
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => {
            const json = text.startsWith("{") ? text : /^data: (.+)$/m.exec(text)![1]!;
            const id = response.headers["mcp-session-id"];
            resolve({
              status: response.statusCode!,
              session: typeof id === "string" ? id : undefined,
              message: JSON.parse(json) as Answer["message"],
            });
          });
        },
      );
      sent.on("error", reject);
      sent.end(body);
    }).then((answer) => {
      assert.equal(sockets.size, 1, "every request went over the one connection");
      return answer;
    });
  return { post, close: () => agent.destroy() };
}

function subscribe(uri: string, id: number): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } });
}

describe("fair shares of the totals for clients without auth", () => {
  let serving: HttpServing;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      limits: { sessionsPerPrincipal: 2, sessionsTotal: 8, perPrincipal: 70, total: 1000 },
    });
  });
  after(() => serving.close());

  it("one connection opens its share of sessions (429 past it, with data.limit), another still opens one", async () => {
    const runaway = oneConnection(serving.url);
    const other = oneConnection(serving.url);
    try {
      assert.equal((await runaway.post(INITIALIZE)).status, 200);
      assert.equal((await runaway.post(INITIALIZE)).status, 200);
      const refused = await runaway.post(INITIALIZE);
      assert.equal(refused.status, 429);
      assert.equal(refused.message.error?.code, -32000);
      assert.match(
        refused.message.error.message,
        /^Session limit reached: the number of 2025-era sessions one principal \(or connection without auth\) may hold open is 2;/,
      );
      assert.deepEqual(refused.message.error.data, { limit: 2, scope: "sessionsPerPrincipal" });
      assert.equal((await other.post(INITIALIZE)).status, 200);
    } finally {
      runaway.close();
      other.close();
    }
  });

  it("one connection watches its share of URIs across its sessions (-32602 past it, with data.limit), another still watches", async () => {
    const runaway = oneConnection(serving.url);
    const other = oneConnection(serving.url);
    try {
      const page = (n: number) => `app://customers_index?page=${n}`;
      const first = (await runaway.post(INITIALIZE)).session!;
      for (let n = 1; n <= 64; n++)
        assert.equal((await runaway.post(subscribe(page(n), n), first)).message.error, undefined);
      const second = (await runaway.post(INITIALIZE)).session!;
      for (let n = 65; n <= 70; n++)
        assert.equal((await runaway.post(subscribe(page(n), n), second)).message.error, undefined);
      const refused = await runaway.post(subscribe(page(71), 71), second);
      assert.equal(refused.message.error?.code, -32602);
      assert.match(
        refused.message.error.message,
        /^Subscription limit reached: the number of URIs one principal \(or connection without auth\) may watch is 70;/,
      );
      assert.deepEqual(refused.message.error.data, { limit: 70, scope: "perPrincipal" });
      const elsewhere = (await other.post(INITIALIZE)).session!;
      assert.equal((await other.post(subscribe(page(71), 1), elsewhere)).message.error, undefined);
    } finally {
      runaway.close();
      other.close();
    }
  });
});

describe("a share not given is 1/64th of its total", () => {
  it("by default, 64 principals fit in every total, not 16", () => {
    const { perPrincipal, total, listensPerPrincipal, listensTotal } = DEFAULT_SUBSCRIPTION_LIMITS;
    const { sessionsPerPrincipal, sessionsTotal } = DEFAULT_SUBSCRIPTION_LIMITS;
    assert.deepEqual(
      [
        total / perPrincipal,
        listensTotal / listensPerPrincipal,
        sessionsTotal / sessionsPerPrincipal,
      ],
      [64, 64, 64],
    );
  });

  it("follows a total that is given: --max-sessions 128 lets a token hold 2 sessions", async () => {
    const token = "reader-secret-0123";
    const file = tokensFile(`${token} # reader\n`);
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(file),
      limits: { sessionsTotal: 128 },
    });
    try {
      assert.equal((await initialize(serving.url, token)).status, 200);
      assert.equal((await initialize(serving.url, token)).status, 200);
      const refused = await initialize(serving.url, token);
      assert.equal(refused.status, 429);
      assert.deepEqual((JSON.parse(refused.text) as { error: { data: unknown } }).error.data, {
        limit: 2,
        scope: "sessionsPerPrincipal",
      });
    } finally {
      await serving.close();
    }
  });
});

describe("waiting watch calls give way past the listens total", () => {
  const WATCH = "watch_resources";
  const HELD = 8;

  async function modernClient(url: URL): Promise<Client> {
    const client = new Client(
      { name: "fair", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(url));
    return client;
  }

  it("one local process holding every listen the server has, as waiting watch calls, does not shut out another client's listen or watch", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      limits: { listensTotal: HELD },
    });
    const runaway = await modernClient(serving.url);
    const other = await modernClient(serving.url);
    try {
      const first = await runaway.callTool({
        name: WATCH,
        arguments: { resources: [{ uri: "app://customers_show/1" }] },
      });
      const { resources } = first.structuredContent as WatchAnswer;
      // Its client's fetch sends each call on a connection of its own: each is its own holder,
      // within its share (1 of 8), and together they hold the whole total.
      const held = Array.from({ length: HELD }, () =>
        runaway.callTool({ name: WATCH, arguments: { resources, timeoutMs: 20_000 } }),
      );
      for (let tries = 0; serving.live.stats().subscriptions < HELD; tries++) {
        assert.ok(tries < 500, "the runaway's calls all wait");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, GIVE_WAY_AFTER_MS));

      const listen = await other.listen({ resourceSubscriptions: ["app://customers_show/2"] });
      assert.deepEqual(listen.honoredFilter.resourceSubscriptions, ["app://customers_show/2"]);
      const watched = await other.callTool({
        name: WATCH,
        arguments: { resources: [{ uri: "app://customers_show/3" }] },
      });
      assert.equal(watched.isError, undefined, JSON.stringify(watched.content));
      assert.equal((watched.structuredContent as WatchAnswer).status, "changed");
      await listen.close();

      // The two calls that gave way answered as at their timeout; the others still wait.
      const answered = await Promise.race([
        Promise.all(held.slice(0, 2)),
        new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 5000)),
      ]);
      assert.notEqual(answered, "waiting", "the longest-waiting calls answered");
      for (const answer of answered as Awaited<(typeof held)[number]>[])
        assert.equal((answer.structuredContent as WatchAnswer).status, "unchanged");
    } finally {
      await serving.close();
      await runaway.close();
      await other.close();
    }
  });
});
