import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { refusal } from "../../packages/livecmd/cli/doctor/unauthorized.ts";
import { createExampleApp } from "../../example/app.ts";
import {
  jwtBearer,
  serveHttp,
  type HttpServing,
} from "../../packages/livecmd/runtime/server/index.ts";
import { TOKEN_ENDED } from "../../packages/livecmd/runtime/server/errors/protocolErrors.ts";
import type { WatchAnswer } from "../../packages/livecmd/runtime/testing/index.ts";
import { root, run } from "../helpers/cli.ts";
import { initialize, openGetStream, openListen, untilEnd } from "../helpers/rawStreams.ts";
import { CLI } from "../helpers/servedCli.ts";

/** This server's URL as clients reach it behind a proxy: the audience its tokens must name. */
const PUBLIC_URL = "https://mcp.example.test/mcp";

/** An authorization server on 127.0.0.1 that publishes its metadata and its signing keys. */
async function authorizationServer(jwk: JWK): Promise<{ issuer: string; server: Server }> {
  const server = createServer((request, response) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const documents: Record<string, unknown> = {
      "/.well-known/oauth-authorization-server": { issuer, jwks_uri: `${issuer}/jwks.json` },
      "/jwks.json": { keys: [{ ...jwk, kid: "k1", alg: "RS256", use: "sig" }] },
    };
    const document = documents[request.url ?? ""];
    response.writeHead(document ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(document ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Claims {
  issuer: string;
  audience: string;
  scope?: string;
  expiresIn?: string;
  key: CryptoKey;
}

function token({ issuer, audience, scope, expiresIn = "5m", key }: Claims): Promise<string> {
  return new SignJWT({ client_id: "agent-7", ...(scope !== undefined && { scope }) })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject("user-1")
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}

async function ask(url: URL, bearer: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${bearer}`,
      "mcp-protocol-version": "2026-07-28",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
  });
}

describe("JWT access tokens of an external authorization server (jose, JWKS)", () => {
  let issuer: string;
  let keys: Server;
  let signing: CryptoKey;
  let stranger: CryptoKey;
  let serving: HttpServing;

  before(async () => {
    const pair = await generateKeyPair("RS256");
    signing = pair.privateKey;
    stranger = (await generateKeyPair("RS256")).privateKey;
    ({ issuer, server: keys } = await authorizationServer(await exportJWK(pair.publicKey)));
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      publicUrl: new URL(PUBLIC_URL),
      auth: jwtBearer({ issuer, audience: PUBLIC_URL }),
    });
  });
  after(async () => {
    await serving.close();
    await new Promise((resolve) => keys.close(resolve));
  });

  it("reads and calls as the token's principal, with its scopes", async () => {
    const bearer = await token({
      issuer,
      audience: PUBLIC_URL,
      scope: "customers:write",
      key: signing,
    });
    const client = new Client(
      { name: "jwt-test", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(serving.url, {
        authProvider: { token: async () => bearer },
      }),
    );
    try {
      const read = await client.readResource({ uri: "app://customers_show/3" });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).id, 3);
      const renamed = await client.callTool({
        name: "customers_rename",
        arguments: { id: 3, name: "Grace Hopper" },
      });
      assert.equal(renamed.isError, undefined);
    } finally {
      await client.close();
    }
  });

  const refusals: [rule: string, claims: () => Claims][] = [
    [
      "a token for another audience (RFC 8707)",
      () => ({ issuer, audience: "https://other.example/mcp", key: signing }),
    ],
    [
      "a token of another issuer",
      () => ({ issuer: "https://evil.example", audience: PUBLIC_URL, key: signing }),
    ],
    [
      "a token signed by a key the issuer does not publish",
      () => ({ issuer, audience: PUBLIC_URL, key: stranger }),
    ],
    ["an expired token", () => ({ issuer, audience: PUBLIC_URL, expiresIn: "-1m", key: signing })],
  ];
  for (const [rule, claims] of refusals) {
    it(`answers ${rule} 401 invalid_token`, async () => {
      const response = await ask(serving.url, await token(claims()));
      assert.equal(response.status, 401);
      assert.match(response.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
      await response.body?.cancel();
    });
  }

  it(
    "ends a listen, a GET stream and a session once their token expires",
    { timeout: 20_000 },
    async () => {
      const bearer = await token({ issuer, audience: PUBLIC_URL, expiresIn: "2s", key: signing });
      const listen = await openListen(serving.url, ["app://customers_show/1"], bearer);
      assert.equal(listen.status, 200);
      const session = (await initialize(serving.url, bearer)).session!;
      const stream = await openGetStream(serving.url, session, bearer);
      assert.equal(stream.status, 200);
      await Promise.all([untilEnd(listen), untilEnd(stream)]);
    },
  );

  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it(`ends a waiting watch call once its token expires, with an error and no data (${era})`, async () => {
      const bearer = await token({ issuer, audience: PUBLIC_URL, expiresIn: "2s", key: signing });
      const client = new Client(
        { name: "jwt-watch", version: "0" },
        { versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(serving.url, {
          authProvider: { token: async () => bearer },
        }),
      );
      const expiresAt = decodeJwt(bearer).exp! * 1000;
      const resources = [{ uri: "app://customers_show/1", version: "not-the-current-one" }];
      const first = await client.callTool({ name: "watch_resources", arguments: { resources } });
      const waiting = client.callTool({
        name: "watch_resources",
        arguments: {
          resources: (first.structuredContent as unknown as WatchAnswer).resources,
          timeoutMs: 20_000,
        },
      });
      const ended = await waiting.then(
        () => assert.fail("the call answered after its token expired"),
        (error: unknown) => error,
      );
      assert.ok(ended instanceof ProtocolError, String(ended));
      assert.equal(ended.code, TOKEN_ENDED);
      assert.ok(Date.now() - expiresAt < 2_000, "ended at the token's expiry, not its 20 s wait");
      await client.close().catch(() => undefined);
    });
  }

  it("names the issuer in its protected-resource metadata, for clients to find it", async () => {
    const metadata = (await (
      await fetch(new URL("/.well-known/oauth-protected-resource/mcp", serving.url))
    ).json()) as Record<string, unknown>;
    assert.deepEqual(metadata.authorization_servers, [issuer]);
    assert.equal(metadata.resource, PUBLIC_URL);
  });
});

describe("livecmd doctor against a JWT-protected server", () => {
  it("names the 401, the challenge, and the authorization server its resource metadata names", async () => {
    const pair = await generateKeyPair("RS256");
    const { issuer, server: keys } = await authorizationServer(await exportJWK(pair.publicKey));
    const port = await freePort();
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port,
      auth: jwtBearer({ issuer, audience: url.href }),
    });
    try {
      assert.equal(
        await refusal({ kind: "http", url, headers: {} }, 5_000),
        `the server answered 401 Unauthorized: it needs a token (WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"); its resource metadata names the authorization server ${issuer}; pass one: --header 'Authorization: Bearer <token>' or --token-file FILE`,
      );
      const bearer = await token({ issuer, audience: url.href, key: pair.privateKey });
      assert.equal(
        await refusal({ kind: "http", url, headers: { authorization: `Bearer ${bearer}` } }, 5_000),
        undefined,
        "a server that lets doctor in has no refusal to explain",
      );
    } finally {
      await serving.close();
      await new Promise((resolve) => keys.close(resolve));
    }
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** An issuer that is down: every request to it is answered 503, and counted. */
async function failingIssuer(): Promise<{
  issuer: string;
  server: Server;
  requests: () => number;
}> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests++;
    response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, server, requests: () => requests };
}

describe("JWT: an issuer that is down, and an audience that can never match", () => {
  it("fetches nothing for a token that is no JWT of the issuer", async () => {
    const down = await failingIssuer();
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: jwtBearer({ issuer: down.issuer, audience: "http://127.0.0.1/mcp" }),
      publicUrl: new URL("http://127.0.0.1/mcp"),
    });
    try {
      const { privateKey } = await generateKeyPair("RS256");
      const otherIssuer = await token({
        issuer: "https://other.example",
        audience: "x",
        key: privateKey,
      });
      for (const bearer of ["x", "a.b.c", otherIssuer]) {
        const response = await ask(serving.url, bearer);
        assert.equal(response.status, 401);
        await response.body?.cancel();
      }
      assert.equal(down.requests(), 0);
    } finally {
      await serving.close();
      await new Promise((resolve) => down.server.close(resolve));
    }
  });

  it("answers 503 with Retry-After, logs the outage once, and backs off", async () => {
    const down = await failingIssuer();
    const errors: string[] = [];
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: jwtBearer({ issuer: down.issuer, audience: "http://127.0.0.1/mcp" }),
      publicUrl: new URL("http://127.0.0.1/mcp"),
      onerror: (error) => errors.push(error.message),
    });
    try {
      const { privateKey } = await generateKeyPair("RS256");
      const bearer = await token({
        issuer: down.issuer,
        audience: "http://127.0.0.1/mcp",
        key: privateKey,
      });
      const REQUESTS = 20;
      for (let sent = 0; sent < REQUESTS; sent++) {
        const response = await ask(serving.url, bearer);
        assert.equal(response.status, 503);
        assert.match(response.headers.get("retry-after") ?? "", /^\d+$/);
        assert.match(await response.text(), /temporarily_unavailable/);
      }
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.match(errors[0]!, /the token issuer http:\/\/127\.0\.0\.1:\d+ cannot be reached/);
      // Both metadata documents once per try; tries are a backoff apart, not one per request.
      assert.ok(down.requests() < REQUESTS, `${down.requests()} fetches for ${REQUESTS} requests`);
    } finally {
      await serving.close();
      await new Promise((resolve) => down.server.close(resolve));
    }
  });

  it("refuses to start when --audience is not the endpoint's URL (exit 2)", async () => {
    const started = await run(
      process.execPath,
      [
        ...CLI,
        ...["serve", "--app", "example/app.ts", "--http", "0"],
        ...["--issuer", "http://127.0.0.1:9", "--audience", "https://mcp.example.test/mcp"],
      ],
      { cwd: root, env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:" } },
    );
    assert.equal(started.code, 2, started.stderr);
    assert.match(
      started.stderr,
      /^livecmd: the audience https:\/\/mcp\.example\.test\/mcp is not this endpoint's URL http:\/\/127\.0\.0\.1:\d+\/mcp, so every token would be refused \(RFC 8707\); pass --audience .*, or --public-url https:\/\/mcp\.example\.test\/mcp if clients reach the server there\n$/,
    );
  });
});
