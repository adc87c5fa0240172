import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it, mock } from "node:test";
import BetterSqlite3 from "better-sqlite3";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as customers from "../../example/commands/customers.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import type { Int } from "../../packages/livecmd/runtime/uri/int.ts";
import type { Context } from "../../packages/livecmd/runtime/model/context.ts";
import { RATE_LIMITED, serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { countedExampleApp, protocolError, PROTOCOLS, readText } from "./support/exampleApp.ts";
import { sqliteHandle } from "../helpers/sqliteHandle.ts";

/** Lets a test hold a command inside its handler, and know when it got there. */
class Gate {
  entered!: Promise<void>;
  /** Settles once the held command has returned. */
  left!: Promise<void>;
  #enter!: () => void;
  #leave!: () => void;
  #release!: () => void;
  #opened!: Promise<void>;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.entered = new Promise((resolve) => (this.#enter = resolve));
    this.left = new Promise((resolve) => (this.#leave = resolve));
    this.#opened = new Promise((resolve) => (this.#release = resolve));
  }

  /** Runs `body` once the gate is released. */
  async pass<T>(body: () => T): Promise<T> {
    this.#enter();
    await this.#opened;
    try {
      return body();
    } finally {
      this.#leave();
    }
  }

  release(): void {
    this.#release();
  }
}

const circular: Record<string, unknown> = { id: 0 };
circular.self = circular;

const gate = new Gate();
const showCustomer = customers.customers_show.handler as (ctx: Context, id: Int) => unknown;

/**
 * customers_show with faults on chosen ids (the catalog entry and parser stay the example's):
 * what a real command does when its code, its data or its database goes wrong.
 */
const FAULTS: [id: number, what: string, message: RegExp][] = [
  [13, "throws an Error", /^boom 13$/],
  [14, "rejects asynchronously with a TypeError", /^async boom$/],
  [15, "returns a value JSON cannot hold (a BigInt)", /BigInt/],
  [16, "returns a circular value", /circular/],
  [17, "throws the error better-sqlite3 throws for a busy database", /^database is locked$/],
  [18, "throws undefined", /^undefined$/],
  [19, "throws an error carrying a JSON-RPC code and data of its own", /^spoof$/],
  [20, "throws a string", /^a string$/],
];

const faultyShow = command(
  { live: true, view: true, title: "Customer" },
  async (ctx: Context, id: Int): Promise<unknown> => {
    switch (id) {
      case 13:
        throw new Error("boom 13");
      case 14:
        await null;
        throw new TypeError("async boom");
      case 15:
        return { id, balance: 10n };
      case 16:
        return circular;
      case 17:
        throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
      case 18:
        throw undefined;
      case 19:
        throw Object.assign(new Error("spoof"), { code: -32602, data: { uri: "x" } });
      case 20:
        throw "a string";
      case 30:
        return gate.pass(() => showCustomer(ctx, 1 as Int));
      default:
        return showCustomer(ctx, id);
    }
  },
);

/** Unhandled rejections and uncaught exceptions while a test runs: there must be none. */
const stray: unknown[] = [];
const noteStray = (error: unknown) => void stray.push(error);
before(() => {
  process.on("unhandledRejection", noteStray);
  process.on("uncaughtException", noteStray);
});
after(() => {
  process.off("unhandledRejection", noteStray);
  process.off("uncaughtException", noteStray);
});
afterEach(() =>
  assert.deepEqual(stray.splice(0), [], "no unhandled rejection or uncaught exception"),
);

for (const protocol of PROTOCOLS) {
  describe(`a command that fails during a read (${protocol})`, () => {
    const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
    let mcp: McpTestClient;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol });
    });
    after(() => mcp.close());

    for (const [id, what, message] of FAULTS) {
      it(`${what}: the read is -32603 with its message, a call is a tool error with the same message, and the server keeps serving`, async () => {
        const error = await protocolError(mcp.read(`app://customers_show/${id}`), -32603);
        assert.match(error.message, message);
        assert.equal(error.data, undefined, "only the message crosses the wire");
        const call = await mcp.call("customers_show", { id });
        assert.equal(call.isError, true);
        assert.equal((call.content[0] as { text: string }).text, error.message);
        assert.equal(
          JSON.parse(readText(await mcp.read("app://customers_show/2"))).name,
          "Grace Hopper",
        );
      });
    }
  });
}

describe("a locked database", () => {
  const dir = mkdtempSync(join(tmpdir(), "livecmd-locked-"));
  const path = join(dir, "example.sqlite");
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const protocol of PROTOCOLS) {
    it(`keeps reads answering, fails a write with a clear tool error, loses nothing, and takes the write once the lock is gone (${protocol})`, async () => {
      const counted = countedExampleApp({ path });
      const db = sqliteHandle(counted.app);
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      // better-sqlite3 waits 5 s for a lock by default, blocking the event loop all along (see the
      // report); a short wait keeps this test fast without changing what it shows.
      db.pragma("busy_timeout = 50");
      const mcp = await testApp(counted.app).mcp({ protocol });
      const locker = new BetterSqlite3(path);
      try {
        locker.exec("BEGIN EXCLUSIVE");
        locker
          .prepare("INSERT INTO customers (name, email, balance, created_at) VALUES (?, ?, 0, ?)")
          .run("Lock Holder", `holder-${protocol}@example.com`, "2026-01-01T00:00:00.000Z");

        // WAL: a writer's lock does not block readers, who see the last committed state.
        const before_ = JSON.parse(
          readText(await mcp.read("app://customers_index?search=holder-")),
        ) as { total: number };
        const email = `blocked-${protocol}@example.com`;
        const blocked = await mcp.call("customers_create", { name: "Blocked Writer", email });
        assert.equal(blocked.isError, true);
        assert.equal((blocked.content[0] as { text: string }).text, "database is locked");
        assert.equal(
          counted.runs.filter((run) => run.command === "customers_create").length,
          1,
          "the write ran and was refused by SQLite",
        );

        locker.exec("COMMIT");
        const after_ = JSON.parse(
          readText(await mcp.read("app://customers_index?search=holder-")),
        ) as { total: number };
        assert.equal(after_.total, before_.total + 1, "the lock holder's committed row is seen");
        const retried = await mcp.call("customers_create", { name: "Blocked Writer", email });
        assert.equal(retried.isError, undefined, JSON.stringify(retried.content));
        const found = JSON.parse(
          readText(await mcp.read(`app://customers_index?search=${encodeURIComponent(email)}`)),
        ) as { total: number };
        assert.equal(
          found.total,
          1,
          "the refused write left nothing behind, and the retry wrote exactly once",
        );
        assert.equal(db.pragma("integrity_check", { simple: true }), "ok");
      } finally {
        if (locker.inTransaction) locker.exec("ROLLBACK");
        locker.close();
        await mcp.close();
      }
    });
  }
});

describe("a flood of reads past the rate limit", () => {
  const PER_MS = 1000;
  const limitedShow = command(
    { live: true, view: true, title: "Customer", rateLimit: { max: 10, perMs: PER_MS } },
    showCustomer,
  );
  // The limiter reads Date.now: a mocked clock makes the window exact however slow the machine.
  before(() => mock.timers.enable({ apis: ["Date"], now: 1_000_000 }));
  after(() => mock.timers.reset());

  it("lets exactly 10 of 100 concurrent reads and calls from two clients on both eras run, refuses the rest with -32010 and a retry hint, and serves again after the window", async () => {
    const counted = countedExampleApp({ overrides: { customers_show: limitedShow } });
    const modern = await testApp(counted.app).mcp({ protocol: "2026-07-28" });
    const legacy = await testApp(counted.app).mcp({ protocol: "2025-11-25" });
    try {
      const flood = Array.from({ length: 100 }, (_, i) => {
        const client = i % 2 === 0 ? modern : legacy;
        return i % 4 < 2
          ? client.read(`app://customers_show/${(i % 50) + 1}`)
          : client.call("customers_show", { id: (i % 50) + 1 });
      });
      const answers = await Promise.allSettled(flood);
      const refused = answers.flatMap((answer) =>
        answer.status === "rejected" ? [answer.reason as unknown] : [],
      );
      assert.equal(answers.length - refused.length, 10, "exactly the limit succeeds");
      assert.equal(counted.runs.length, 10, "refused runs never reach the handler");
      for (const error of refused) {
        assert.ok(error instanceof ProtocolError && error.code === RATE_LIMITED, String(error));
        assert.equal(error.message, "Rate limit of customers_show reached; retry in 1 s");
        assert.deepEqual(error.data, { command: "customers_show", retryAfterMs: PER_MS });
      }
      mock.timers.tick(PER_MS - 1);
      await protocolError(legacy.read("app://customers_show/1"), RATE_LIMITED);
      mock.timers.tick(1);
      const next = await Promise.allSettled(
        Array.from({ length: 11 }, (_, i) => modern.read(`app://customers_show/${i + 1}`)),
      );
      assert.equal(
        next.filter((answer) => answer.status === "fulfilled").length,
        10,
        "once the window has passed, a full quota again, and no more",
      );
      assert.equal(counted.runs.length, 20);
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});

describe("a client that vanishes mid-request", () => {
  for (const protocol of PROTOCOLS) {
    it(`in memory: the client closes while a slow read runs; the command finishes, other clients are served throughout (${protocol})`, async () => {
      gate.reset();
      const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
      const leaving = await testApp(counted.app).mcp({ protocol });
      const staying = await testApp(counted.app).mcp({ protocol });
      const slow = leaving.read("app://customers_show/30").then(
        () => "answered",
        () => "failed",
      );
      await gate.entered;
      assert.equal(
        JSON.parse(readText(await staying.read("app://customers_show/2"))).name,
        "Grace Hopper",
        "a slow command blocks no one",
      );
      await leaving.close();
      assert.equal(await slow, "failed", "the closed client's request fails locally");
      gate.release();
      await gate.left;
      assert.equal(JSON.parse(readText(await staying.read("app://customers_show/3"))).id, 3);
      await staying.close();
    });

    it(`over HTTP: the connection is cut while a slow read runs; the server stays healthy for new clients (${protocol})`, async () => {
      gate.reset();
      const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
      const errors: Error[] = [];
      const serving = await serveHttp(counted.app, {
        port: 0,
        onerror: (error) => void errors.push(error),
      });
      const aborts = new Set<AbortController>();
      const cuttable = (url: string | URL, init?: RequestInit) => {
        const controller = new AbortController();
        aborts.add(controller);
        return fetch(url, { ...init, signal: controller.signal });
      };
      const client = connectClient(protocol);
      try {
        await client.connect(new StreamableHTTPClientTransport(serving.url, { fetch: cuttable }));
        const slow = client.readResource({ uri: "app://customers_show/30" }).then(
          () => "answered",
          () => "failed",
        );
        await gate.entered;
        for (const controller of aborts) controller.abort();
        assert.equal(await slow, "failed");
        gate.release();
        await gate.left;
        for (const era of PROTOCOLS) {
          const fresh = connectClient(era);
          await fresh.connect(new StreamableHTTPClientTransport(serving.url));
          const { contents } = await fresh.readResource({ uri: "app://customers_show/2" });
          assert.equal(JSON.parse(readText({ contents })).name, "Grace Hopper");
          await fresh.close();
        }
        assert.deepEqual(
          errors.map((error) => error.message),
          [],
          "a client that left is not an error of the server",
        );
      } finally {
        gate.release();
        await client.close().catch(() => undefined);
        await serving.close();
      }
    });
  }
});

function connectClient(protocol: (typeof PROTOCOLS)[number]): Client {
  return new Client(
    { name: "reliability", version: "0.0.0" },
    protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
}

describe("fault: 2025-era HTTP sessions a client leaves behind", () => {
  const IDLE_MS = 200;
  const LEGACY = "2025-11-25";
  const headers = (session?: string): Record<string, string> => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": LEGACY,
    ...(session && { "mcp-session-id": session }),
  });
  const post = (url: URL, session: string | undefined, message: object) =>
    fetch(url, {
      method: "POST",
      headers: headers(session),
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });

  async function openSession(url: URL): Promise<string> {
    const response = await post(url, undefined, {
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "idle", version: "0" },
      },
    });
    await response.body?.cancel();
    const session = response.headers.get("mcp-session-id");
    assert.ok(session, "initialize opens a session");
    await (await post(url, session, { method: "notifications/initialized" })).body?.cancel();
    return session;
  }

  async function readStatus(url: URL, session: string): Promise<{ status: number; text: string }> {
    const response = await post(url, session, {
      id: 2,
      method: "resources/read",
      params: { uri: "app://customers_show/1" },
    });
    return { status: response.status, text: await response.text() };
  }

  const idle = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS * 4));

  it("closes a session with nothing open for sessionIdleMs; its next request gets 404 and a hint to initialize again", async () => {
    const serving = await serveHttp(countedExampleApp().app, { port: 0, sessionIdleMs: IDLE_MS });
    try {
      const session = await openSession(serving.url);
      assert.equal((await readStatus(serving.url, session)).status, 200, "a fresh session answers");
      await idle();
      const expired = await readStatus(serving.url, session);
      assert.equal(expired.status, 404);
      assert.match(expired.text, /Session .* not found; initialize again/);
      assert.equal(
        (await readStatus(serving.url, await openSession(serving.url))).status,
        200,
        "a new session works",
      );
    } finally {
      await serving.close();
    }
  });

  it("keeps a session whose push stream is open, however long, and closes it once the stream ends", async () => {
    const serving = await serveHttp(countedExampleApp().app, { port: 0, sessionIdleMs: IDLE_MS });
    try {
      const session = await openSession(serving.url);
      const stream = new AbortController();
      const push = await fetch(serving.url, {
        headers: { ...headers(session), accept: "text/event-stream" },
        signal: stream.signal,
      });
      assert.equal(push.status, 200);
      await idle();
      assert.equal(
        (await readStatus(serving.url, session)).status,
        200,
        "an open stream keeps the session",
      );
      stream.abort();
      await idle();
      assert.equal(
        (await readStatus(serving.url, session)).status,
        404,
        "idle once the stream is gone",
      );
    } finally {
      await serving.close();
    }
  });

  it("refuses a sessionIdleMs that is not a positive number", async () => {
    await assert.rejects(
      serveHttp(countedExampleApp().app, { port: 0, sessionIdleMs: 0 }),
      /sessionIdleMs must be a positive number of milliseconds, got 0/,
    );
  });
});
