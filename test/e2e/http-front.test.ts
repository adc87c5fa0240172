import assert from "node:assert/strict";
import { once } from "node:events";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout } from "node:timers/promises";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import { INITIALIZE, MODERN_ENVELOPE } from "../helpers/rawStreams.ts";

const JSON_AND_SSE = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

interface FrontCase {
  rule: string;
  method: string;
  headers?: (serving: HttpServing) => Record<string, string>;
  path?: string;
  body?: string;
  status: number;
  allow?: string;
  /** The JSON-RPC error code of the answer, when it is one. */
  code?: number;
}

/** Hosts no URL can be built from (credentials, a space, an unclosed bracket): 400, no server fault. */
const MALFORMED_HOSTS = ["localhost@evil.example", "user:pw@localhost", "local host", "[::1"];

/** What reverse proxies add to what they forward: without auth, each is refused. */
const FORWARDING_HEADERS = {
  forwarded: "for=203.0.113.7",
  "x-forwarded-for": "203.0.113.7",
  "x-forwarded-host": "mcp.example.test",
  "x-forwarded-proto": "https",
  "x-real-ip": "203.0.113.7",
  via: "1.1 proxy",
};

const CASES: FrontCase[] = [
  ...MALFORMED_HOSTS.map((host): FrontCase => ({
    rule: `a Host that is no host[:port] (${JSON.stringify(host)}) is 400, not a server fault`,
    method: "POST",
    headers: () => ({ host }),
    body: INITIALIZE,
    status: 400,
    code: -32000,
  })),
  ...Object.entries(FORWARDING_HEADERS).map(([name, value]): FrontCase => ({
    rule: `without auth, a request a proxy forwarded (${name}) is refused: the proxy's clients are not this machine`,
    method: "POST",
    headers: () => ({ [name]: value }),
    body: INITIALIZE,
    status: 403,
    code: -32000,
  })),
  {
    rule: "a method MCP does not use is 405 with Allow",
    method: "PUT",
    status: 405,
    allow: "GET, POST, DELETE",
  },
  {
    rule: "GET without a 2025 session is 405 (the 2026-07-28 era has no GET)",
    method: "GET",
    status: 405,
    allow: "POST",
  },
  { rule: "DELETE without a 2025 session is 405", method: "DELETE", status: 405, allow: "POST" },
  {
    rule: "a body that is not JSON is -32700, before any session",
    method: "POST",
    body: "{not json",
    status: 400,
    code: -32700,
  },
  {
    rule: "a body that is not JSON is -32700 on the 2026-07-28 era too",
    method: "POST",
    headers: () => ({ "mcp-protocol-version": "2026-07-28" }),
    body: "[1,",
    status: 400,
    code: -32700,
  },
  ...[INITIALIZE, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })].map(
    (body): FrontCase => ({
      rule: `a 2025 POST whose Content-Type is not JSON is 415, before any session (${JSON.parse(body).method})`,
      method: "POST",
      headers: () => ({ "content-type": "text/plain" }),
      body,
      status: 415,
      code: -32000,
    }),
  ),
  {
    rule: "an Origin of this host on another port is refused (the port counts)",
    method: "POST",
    headers: () => ({ origin: "http://localhost:1" }),
    body: INITIALIZE,
    status: 403,
    code: -32000,
  },
  {
    rule: "an Origin of another site is refused",
    method: "POST",
    headers: () => ({ origin: "https://evil.example" }),
    body: INITIALIZE,
    status: 403,
    code: -32000,
  },
  {
    rule: "this server's own origin, port included, is served",
    method: "POST",
    headers: (serving) => ({ origin: `http://127.0.0.1:${serving.url.port}` }),
    body: INITIALIZE,
    status: 200,
  },
  {
    rule: "a Host this server does not answer to is refused (DNS rebinding)",
    method: "POST",
    headers: () => ({ host: "evil.example" }),
    body: INITIALIZE,
    status: 403,
    code: -32000,
  },
  {
    rule: "a path other than /mcp is 404",
    method: "POST",
    path: "/other",
    body: INITIALIZE,
    status: 404,
  },
  {
    rule: "no protected-resource metadata without auth",
    method: "GET",
    path: "/.well-known/oauth-protected-resource/mcp",
    status: 404,
  },
];

async function send(
  url: URL,
  {
    method,
    headers,
    body,
  }: { method: string; headers: Record<string, string>; body?: string | undefined },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode!, headers: response.headers, text }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** A 2025-era session opened by a raw `initialize`: its id. */
async function openSession(url: URL): Promise<string> {
  const initialized = await fetch(url, { method: "POST", headers: JSON_AND_SSE, body: INITIALIZE });
  await initialized.body?.cancel();
  return initialized.headers.get("mcp-session-id")!;
}

describe("the HTTP front door", () => {
  let serving: HttpServing;
  const errors: string[] = [];
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      onerror: (error) => errors.push(error.message),
    });
  });
  after(() => serving.close());

  for (const { rule, method, headers, path, body, status, allow, code } of CASES) {
    it(rule, async () => {
      // node:http, not fetch: fetch will not send a Host of our choosing.
      const response = await send(new URL(path ?? serving.url.pathname, serving.url), {
        method,
        headers: { ...JSON_AND_SSE, ...headers?.(serving) },
        body,
      });
      assert.equal(response.status, status, response.text);
      assert.deepEqual(errors, [], "nothing logged as a server fault");
      if (allow !== undefined) assert.equal(response.headers.allow, allow);
      const text = response.text;
      if (code !== undefined)
        assert.equal((JSON.parse(text) as { error: { code: number } }).error.code, code, text);
    });
  }

  it("opens every event stream with a priming event: an id, retry: and empty data (SEP-1699)", async () => {
    const session = await openSession(serving.url);
    const stream = await fetch(serving.url, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      },
    });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^id: \S+\nretry: 3000\ndata: \n\n/);
    await reader.cancel();
  });

  it("answers a 3 MiB URI with a short message and writes no copy of it to the log", async () => {
    errors.length = 0;
    const session = await openSession(serving.url);
    const uri = `app://customers_index?search=${"a".repeat(3 * 1024 * 1024)}`;
    const response = await fetch(serving.url, {
      method: "POST",
      headers: { ...JSON_AND_SSE, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.ok(text.length < 8 * 1024, `the answer is ${text.length} characters`);
    assert.match(
      text,
      /Invalid URI app:\/\/customers_index\?search=a{170}.*… \(3145757 characters\)/,
    );
    assert.ok(
      errors.join("\n").length < 8 * 1024,
      `the log got ${errors.join("\n").length} characters`,
    );
  });

  for (const [how, mcpName, chunked] of [
    ["without Mcp-Name", undefined, false],
    ["without Mcp-Name, sent chunked", undefined, true],
    ["with an Mcp-Name naming another URI", "app://customers_show/1", false],
  ] as const) {
    it(`answers a 2026-07-28 read of a 3 MiB URI ${how} with a bounded -32020`, async () => {
      const uri = `app://customers_index?search=${"a".repeat(3 * 1024 * 1024)}`;
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "resources/read",
        params: { uri, _meta: MODERN_ENVELOPE },
      });
      const response = await fetch(serving.url, {
        method: "POST",
        headers: {
          ...JSON_AND_SSE,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "resources/read",
          ...(mcpName !== undefined && { "mcp-name": mcpName }),
        },
        body: chunked ? new Blob([body]).stream() : body,
        ...(chunked && { duplex: "half" }),
      } as RequestInit);
      const text = await response.text();
      assert.equal(response.status, 400);
      assert.ok(text.length < 4096, `the answer is ${text.length} characters`);
      const { error } = JSON.parse(text) as { error: { code: number; message: string } };
      assert.equal(error.code, -32020);
      // Read whole, the front door names the header; sent chunked, the SDK's answer is cut.
      assert.match(error.message, chunked ? /headers and body disagree/ : /but the .*Mcp-Name/);
    });
  }

  it("serves the first request of a connection opened well before it, as a client's pool opens one", async () => {
    // Node counts a new connection's headers time from when it opens: with a headersTimeout
    // shorter than this pause, the request would be answered 408 before it is read.
    const socket = connect(Number(serving.url.port), "127.0.0.1");
    await once(socket, "connect");
    await setTimeout(IDLE_BEFORE_FIRST_REQUEST_MS);
    const answer = await exchange(socket, rawPost(serving.url, INITIALIZE));
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });
});

describe("Node's server timeouts", () => {
  let serving: HttpServing;
  // Short here, and only here: a new connection's headersTimeout counts from when it opens, so
  // on a server shared with requests fetch's pool sends later it would answer them 408.
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      timeouts: { headersTimeoutMs: 300 },
    });
  });
  after(() => serving.close());

  it("closes a connection whose headers do not arrive within headersTimeout (408)", async () => {
    const socket = connect(Number(serving.url.port), "127.0.0.1");
    const answer = await exchange(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    assert.match(answer, /^HTTP\/1\.1 408/);
  });
});

/**
 * Longer than a 300 ms headersTimeout plus Node's check interval (as long): a server with that
 * timeout answers the request after this pause 408 every time.
 */
const IDLE_BEFORE_FIRST_REQUEST_MS = 700;

/** Writes `text` on `socket` and resolves with all it receives until it closes. */
async function exchange(socket: Socket, text: string): Promise<string> {
  let answer = "";
  socket.on("data", (chunk) => (answer += chunk.toString()));
  socket.write(text);
  await once(socket, "close");
  return answer;
}

/** A raw HTTP/1.1 POST of `body` to `url`, the connection closed after the answer. */
function rawPost(url: URL, body: string): string {
  return [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}
