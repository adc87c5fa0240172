import assert from "node:assert/strict";
import { request, type ClientRequest } from "node:http";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { App } from "../../packages/livecmd/runtime/index.ts";
import type { McpHandler, McpHandlerOptions } from "../../packages/livecmd/runtime/server/index.ts";
import { packageVersionNear } from "../../packages/livecmd/runtime/server/served/packageVersion.ts";
import { livecmd, root } from "./cli.ts";
import { INITIALIZE } from "./rawStreams.ts";
import { connectStackClient, STACK_CLIENTS } from "./stackClients.ts";
import { tokensFile } from "./tokensFile.ts";

/** An example server: the app's own routes and its MCP endpoint at `/mcp`, on one port. */
export interface StackServer {
  url: URL;
  app: App;
  mcp: McpHandler;
  close(): Promise<void>;
}

export interface StackOptions {
  databasePath: string;
  host?: string;
  tokensFile?: string;
  mcp?: McpHandlerOptions;
}

/** A web framework's example app, and what its tests read, watch and write. */
export interface MountedStack {
  name: string;
  /** The example's folder, its app in `app.ts` and codegen's output in `generated/`. */
  folder: string;
  start(options: StackOptions): Promise<StackServer>;
  /** A read, and what it returns on a fresh database. */
  read: { uri: string; result: unknown };
  /** A URI whose result `apiWrite` (through the app's own route) and `toolWrite` each change. */
  watched: string;
  apiWrite(root: URL): Promise<Response>;
  toolWrite: { name: string; arguments: Record<string, unknown> };
}

const TOKEN = "stack-secret-0123";
const TOKENS = `${TOKEN} # stack tests\n`;
/** A page the endpoint is told to allow (`allowedOrigins`). */
const PAGE = "https://agent.example";

/** Every rule of the mounted endpoint, through `stack`'s real server and real SDK clients. */
export function describeMountedStack(stack: MountedStack): void {
  describe(`${stack.name}: the MCP endpoint mounted beside the app's own routes`, () => {
    for (const kind of STACK_CLIENTS) {
      describe(kind.name, () => {
        let server: StackServer;
        let client: Awaited<ReturnType<typeof connectStackClient>>;
        before(async () => {
          server = await stack.start({ databasePath: ":memory:", tokensFile: tokensFile(TOKENS) });
          client = await connectStackClient(kind, new URL("/mcp", server.url), TOKEN);
        });
        after(async () => {
          await client.close();
          await server.close();
        });

        it(`is served on its era and reads ${stack.read.uri}; it says the version livecmd serve says of the app`, async () => {
          assert.equal(client.protocolVersion, kind.era);
          assert.equal(
            client.server?.version,
            packageVersionNear(path.join(root, stack.folder, "app.ts")),
          );
          assert.deepEqual(await client.read(stack.read.uri), stack.read.result);
        });

        it(`watches ${stack.watched}: a write through the app's own route, then a tool call, each notify`, async () => {
          const watching = await client.watch(stack.watched);
          const first = await client.read(stack.watched);
          assert.equal((await stack.apiWrite(server.url)).status, 201);
          assert.equal(await client.nextUpdate(), stack.watched);
          await client.call(stack.toolWrite.name, stack.toolWrite.arguments);
          assert.equal(await client.nextUpdate(), stack.watched);
          assert.notDeepEqual(await client.read(stack.watched), first);
          await watching.end();
        });
      });
    }
    describe("its front door", () => frontDoorRules(stack));
    it("has its generated files current (livecmd codegen --check)", async () => {
      const check = await livecmd([
        "codegen",
        "--check",
        "--app",
        `${stack.folder}/app.ts`,
        "--out",
        `${stack.folder}/generated`,
      ]);
      assert.equal(check.code, 0, check.stdout + check.stderr);
    });
    it("close() drains: a call in progress finishes, a listen ends gracefully, /healthz says so, later requests are 503", async () =>
      drains(stack));
    it("close() drains a request whose body is still uploading as it is called: it waits for it, and the request is answered", async () =>
      drainsUpload(stack));
    peerRule(stack);
  });
}

function frontDoorRules(stack: MountedStack): void {
  let server: StackServer;
  let mcp: URL;
  before(async () => {
    server = await stack.start({
      databasePath: ":memory:",
      tokensFile: tokensFile(TOKENS),
      mcp: { allowedOrigins: [PAGE] },
    });
    mcp = new URL("/mcp", server.url);
  });
  after(() => server.close());

  it("reads its requests' bodies itself, whatever parses the app's: a 5 MiB body is its 413 and one that is not JSON its -32700, as JSON-RPC", async () => {
    const cases: [body: string, status: number, code: number, message: RegExp][] = [
      [
        "x".repeat(5 * 1024 * 1024),
        413,
        -32000,
        /^Payload Too Large: Request body must not exceed 4194304 bytes/,
      ],
      ["{not json", 400, -32700, /Parse error/],
    ];
    for (const [body, status, code, message] of cases) {
      const answer = await fetch(mcp, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
        },
        body,
      });
      assert.equal(answer.status, status);
      const error = ((await answer.json()) as { error?: { code: number; message: string } }).error;
      assert.equal(error?.code, code, JSON.stringify(error));
      assert.match(error.message, message);
    }
  });

  it("answers a request without a token 401 with a bearer challenge", async () => {
    const answer = await post(mcp, {});
    assert.equal(answer.status, 401);
    assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer\b/);
  });

  it("answers an allowed origin's preflight, and its requests carry the CORS headers", async () => {
    const preflight = await fetch(mcp, {
      method: "OPTIONS",
      headers: { origin: PAGE, "access-control-request-method": "POST" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), PAGE);
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Mcp-Session-Id/);
    const answer = await post(mcp, { origin: PAGE, authorization: `Bearer ${TOKEN}` });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(
      answer.headers.get("access-control-expose-headers"),
      "Mcp-Session-Id,WWW-Authenticate",
    );
    await answer.body?.cancel();
  });

  it("refuses another origin (403, no CORS headers), its preflight too", async () => {
    const evil = { origin: "https://evil.example", authorization: `Bearer ${TOKEN}` };
    for (const answer of [
      await fetch(mcp, { method: "OPTIONS", headers: evil }),
      await post(mcp, evil),
    ]) {
      assert.equal(answer.status, 403);
      assert.equal(answer.headers.get("access-control-allow-origin"), null);
    }
  });

  it("refuses a Host it does not answer to (403, DNS rebinding)", async () => {
    const answer = await sentWithHost(mcp, "evil.example", { authorization: `Bearer ${TOKEN}` });
    assert.equal(answer.status, 403);
    const { error } = JSON.parse(answer.text) as { error: { message: string } };
    assert.match(error.message, /the Host "evil\.example" is not one this server answers to/);
  });

  it("leaves the app's own routes to the app: its /healthz tells the endpoint's readiness", async () => {
    const health = await fetch(new URL("/healthz", server.url));
    assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
  });
}

async function drains(stack: MountedStack): Promise<void> {
  const server = await stack.start({ databasePath: ":memory:", tokensFile: tokensFile(TOKENS) });
  const [kind] = STACK_CLIENTS;
  const client = await connectStackClient(kind, new URL("/mcp", server.url), TOKEN);
  let reached!: () => void;
  const inProgress = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.app.use(async (invocation, next) => {
    if (invocation.command !== stack.toolWrite.name) return next();
    reached();
    await gate;
    return next();
  });
  const listen = await client.watch(stack.watched);
  const call = client.call(stack.toolWrite.name, stack.toolWrite.arguments);
  await inProgress;
  let closed = false;
  const closing = server.mcp.close().then(() => (closed = true));
  const health = await fetch(new URL("/healthz", server.url));
  assert.deepEqual(await health.json(), {
    status: "unavailable",
    problem: "draining: shutting down",
  });
  assert.equal(health.status, 503);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(closed, false, "close() waits for the call in progress");
  release();
  await call;
  await closing;
  assert.equal(await listen.closed, "graceful");
  const after = await post(new URL("/mcp", server.url), { authorization: `Bearer ${TOKEN}` });
  assert.equal(after.status, 503);
  assert.match(await after.text(), /this MCP endpoint has shut down/);
  await client.close();
  await server.close();
}

/**
 * A request sent to the example's server, mounted as `docs/mcp.md` mounts it ("Mount the
 * endpoint in your server"), its headers and half its body before `close()`, the rest after:
 * `close()` waits for it, within its drain bound, and it is answered as if no shutdown had begun.
 */
async function drainsUpload(stack: MountedStack): Promise<void> {
  const server = await stack.start({ databasePath: ":memory:", tokensFile: tokensFile(TOKENS) });
  const half = INITIALIZE.length >> 1;
  const upload = request(new URL("/mcp", server.url), {
    method: "POST",
    agent: false,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": INITIALIZE.length,
    },
  });
  try {
    const answered = answerOf(upload);
    // Should an assertion fail first, `finally` cuts the upload off: that is no second failure.
    answered.catch(() => undefined);
    upload.write(INITIALIZE.slice(0, half));
    // The headers and half the body reach the server, which waits for the rest.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let closed = false;
    const started = performance.now();
    const closing = server.mcp.close({ drainMs: 5_000 }).then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(closed, false, "close() waits for the request whose body is still coming");
    upload.end(INITIALIZE.slice(half));
    const { status, text } = await answered;
    assert.equal(status, 200, text);
    assert.match(text, /"protocolVersion":"2025-11-25"/);
    await closing;
    assert.ok(performance.now() - started < 5_000, "close() did not wait out its drain bound");
  } finally {
    upload.destroy();
    await server.close();
  }
}

/** The status and body of the answer to `outgoing`. */
function answerOf(outgoing: ClientRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    outgoing.on("error", reject);
    outgoing.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, text }));
    });
  });
}

/**
 * Without auth the endpoint answers only this machine: a client that reaches the server at one
 * of the machine's own network addresses comes from that address, not loopback, and is refused
 * by its socket's address before its `Host` is looked at.
 */
function peerRule(stack: MountedStack): void {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((each) => each?.family === "IPv4" && !each.internal)?.address;
  it(
    "without auth, refuses a client on another address (the socket's peer) and answers loopback",
    { skip: address === undefined && "this machine has no network address but loopback" },
    async () => {
      const server = await stack.start({
        databasePath: ":memory:",
        host: "0.0.0.0",
      });
      try {
        const port = server.url.port;
        const remote = await post(new URL(`http://${address}:${port}/mcp`), {});
        assert.equal(remote.status, 403);
        assert.match(await remote.text(), /no auth, so it answers only clients on its own machine/);
        const local = await post(new URL(`http://127.0.0.1:${port}/mcp`), {});
        assert.equal(local.status, 200);
        await local.body?.cancel();
      } finally {
        await server.close();
      }
    },
  );
}

/** A raw 2025-era `initialize`, as a browser page or a script would send it. */
function post(url: URL, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: INITIALIZE,
  });
}

/** `post` naming `host` in its Host header (fetch will not). */
function sentWithHost(
  url: URL,
  host: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        headers: {
          host,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, text }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(INITIALIZE);
  });
}
