import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import {
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../../packages/livecmd/runtime/server/index.ts";
import { tokensFile } from "../helpers/tokensFile.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

const TOKENS = `# the example app's writes need customers:write
reader-secret-0123 customers:read # reader
writer-secret-0123 customers:read customers:write # writer
`;

/** The SDK client with its own bearer-token support: `authProvider.token()` before each request. */
async function connectAs(
  url: URL,
  protocol: (typeof PROTOCOLS)[number],
  token: string | undefined,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: "auth-test", version: "0" },
    protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(
    url,
    token === undefined ? {} : { authProvider: { token: async () => token } },
  );
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result: { contents: unknown[] }) =>
  JSON.parse((result.contents[0] as { text: string }).text) as Record<string, unknown>;

/** The next `notifications/resources/updated` the client receives. */
function nextUpdate(client: Client): Promise<string> {
  return new Promise((resolve) =>
    client.setNotificationHandler("notifications/resources/updated", (notification) =>
      resolve(notification.params.uri),
    ),
  );
}

async function watch(
  client: Client,
  protocol: (typeof PROTOCOLS)[number],
  uri: string,
): Promise<() => Promise<void>> {
  if (protocol === "2026-07-28") {
    const listen = await client.listen({ resourceSubscriptions: [uri] });
    assert.deepEqual(listen.honoredFilter.resourceSubscriptions, [uri]);
    return () => listen.close();
  }
  await client.subscribeResource({ uri });
  return async () => void (await client.unsubscribeResource({ uri }));
}

describe("bearer tokens on the HTTP endpoint", () => {
  let serving: HttpServing;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(tokensFile(TOKENS)),
    });
  });
  after(() => serving.close());

  it("answers a request without a token 401 with a challenge naming the protected-resource metadata, which names this resource", async () => {
    const response = await fetch(serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
    });
    assert.equal(response.status, 401);
    const metadataUrl = new URL(`/.well-known/oauth-protected-resource/mcp`, serving.url).href;
    // No error code: the request carried no token (RFC 6750 §3.1).
    assert.equal(
      response.headers.get("www-authenticate"),
      `Bearer resource_metadata="${metadataUrl}"`,
    );
    assert.match(await response.text(), /^Unauthorized: this endpoint needs a bearer token/);
    // A token it does not know is an invalid one, and told so.
    const wrong = await fetch(serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer not-a-token-of-this-server",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
    });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token", /);
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    assert.equal(metadata.resource, serving.url.href);
    assert.deepEqual(metadata.bearer_methods_supported, ["header"]);
  });

  it("refuses an access token in the query string (400), even a good one", async () => {
    const url = new URL(serving.url);
    url.searchParams.set("access_token", "reader-secret-0123");
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer reader-secret-0123",
      },
      body: "{}",
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /Authorization header/);
  });

  for (const protocol of PROTOCOLS) {
    describe(`through the SDK client on ${protocol}`, () => {
      it("cannot connect without a token, nor with a token the server does not know", async () => {
        // Without an auth provider the SDK reports the 401 (livecmd's body, or "requires authorization" while
        // negotiating 2026-07-28); with one whose token is refused, UnauthorizedError.
        await assert.rejects(
          connectAs(serving.url, protocol, undefined),
          /needs a bearer token in the Authorization header|requires authorization \(HTTP 401\)/,
        );
        await assert.rejects(connectAs(serving.url, protocol, "not-a-token"), UnauthorizedError);
      });

      it("reads and watches with a token; a token without customers:write sees no write tool and cannot call one", async () => {
        const reader = await connectAs(serving.url, protocol, "reader-secret-0123");
        const writer = await connectAs(serving.url, protocol, "writer-secret-0123");
        try {
          assert.equal(
            textOf(await reader.client.readResource({ uri: "app://customers_show/1" })).id,
            1,
          );
          const readerTools = (await reader.client.listTools()).tools.map((tool) => tool.name);
          assert.ok(readerTools.includes("customers_show"));
          assert.ok(!readerTools.includes("customers_rename"), readerTools.join());
          assert.ok(
            (await writer.client.listTools()).tools.some(
              (tool) => tool.name === "customers_rename",
            ),
          );
          const refused = await reader.client
            .callTool({ name: "customers_rename", arguments: { id: 1, name: "Mallory" } })
            .then(
              (result) => result,
              (error: unknown) => error,
            );
          const unknown = await reader.client
            .callTool({ name: "no_such_tool", arguments: {} })
            .then(
              (result) => result,
              (error: unknown) => error,
            );
          assert.ok(refused instanceof ProtocolError && unknown instanceof ProtocolError);
          assert.equal(refused.code, unknown.code, "out of scope is answered as unknown");
          assert.equal(
            refused.message.replace("customers_rename", "X"),
            unknown.message.replace("no_such_tool", "X"),
          );

          const updated = nextUpdate(reader.client);
          const stop = await watch(reader.client, protocol, "app://customers_show/1");
          const renamed = await writer.client.callTool({
            name: "customers_rename",
            arguments: { id: 1, name: `Ada (${protocol})` },
          });
          assert.equal(renamed.isError, undefined);
          assert.equal(await updated, "app://customers_show/1");
          assert.equal(
            textOf(await reader.client.readResource({ uri: "app://customers_show/1" })).name,
            `Ada (${protocol})`,
          );
          await stop();
        } finally {
          await reader.client.close();
          await writer.client.close();
        }
      });
    });
  }

  it("2025 era: another principal presenting a session id gets 404, as for an unknown session; its owner keeps it", async () => {
    const reader = await connectAs(serving.url, "2025-11-25", "reader-secret-0123");
    try {
      const sessionId = reader.transport.sessionId!;
      for (const method of ["POST", "GET", "DELETE"]) {
        const response = await fetch(serving.url, {
          method,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: "Bearer writer-secret-0123",
            "mcp-session-id": sessionId,
            "mcp-protocol-version": "2025-11-25",
          },
          ...(method === "POST" && {
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 9,
              method: "resources/unsubscribe",
              params: { uri: "app://customers_show/1" },
            }),
          }),
        });
        assert.equal(response.status, 404, method);
        await response.body?.cancel();
      }
      assert.equal(
        textOf(await reader.client.readResource({ uri: "app://customers_show/2" })).id,
        2,
      );
    } finally {
      await reader.client.close();
    }
  });

  it("2025 era: a principal is its client, not its token: a session stays its client's when it steps up to a token with more scopes", async () => {
    const file = tokensFile(
      `${TOKENS}stepped-up-secret-0123 customers:read customers:write # reader\n`,
    );
    const stepping = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(file),
    });
    let token = "reader-secret-0123";
    const client = new Client({ name: "auth-test", version: "0" });
    const transport = new StreamableHTTPClientTransport(stepping.url, {
      authProvider: { token: async () => token },
    });
    try {
      await client.connect(transport);
      token = "stepped-up-secret-0123";
      assert.equal(textOf(await client.readResource({ uri: "app://customers_show/2" })).id, 2);
      token = "writer-secret-0123";
      await assert.rejects(client.readResource({ uri: "app://customers_show/2" }), /not found/);
    } finally {
      await client.close();
      await stepping.close();
    }
  });

  it("marks listings private, since what a principal may list depends on its scopes", async () => {
    const reader = await connectAs(serving.url, "2026-07-28", "reader-secret-0123");
    try {
      const tools = await reader.client.listTools(undefined, { cacheMode: "bypass" });
      assert.equal(tools.cacheScope, "private");
    } finally {
      await reader.client.close();
    }
  });
});

describe("a scope every request needs", () => {
  it("answers a token without it 403 insufficient_scope, naming the scope and the metadata", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(tokensFile(TOKENS), { requiredScopes: ["customers:write"] }),
    });
    try {
      const ask = (token: string) =>
        fetch(serving.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
            "mcp-protocol-version": "2026-07-28",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
        });
      const refused = await ask("reader-secret-0123");
      assert.equal(refused.status, 403);
      const challenge = refused.headers.get("www-authenticate") ?? "";
      assert.match(challenge, /error="insufficient_scope"/);
      assert.match(challenge, /scope="customers:write"/);
      assert.match(challenge, /resource_metadata="/);
      await refused.body?.cancel();
      const allowed = await ask("writer-secret-0123");
      assert.notEqual(allowed.status, 403);
      await allowed.body?.cancel();
    } finally {
      await serving.close();
    }
  });
});

describe("serving beyond loopback", () => {
  it("refuses to start on 0.0.0.0 without auth, saying why", async () => {
    await assert.rejects(
      serveHttp(createExampleApp(":memory:"), { port: 0, host: "0.0.0.0" }),
      /without auth would open every granted command to the network; pass auth/,
    );
  });
});
