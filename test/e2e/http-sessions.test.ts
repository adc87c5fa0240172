import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import {
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../../packages/livecmd/runtime/server/index.ts";
import { initialize } from "../helpers/rawStreams.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const READER = "reader-secret-0123";
const WRITER = "writer-secret-0123";

describe("2025-era sessions capped per principal and in all", () => {
  let serving: HttpServing;
  before(async () => {
    const file = tokensFile(
      `${READER} customers:read # reader\n${WRITER} customers:read # writer\n`,
    );
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(file),
      limits: { sessionsPerPrincipal: 2, sessionsTotal: 3 },
    });
  });
  after(() => serving.close());

  it("refuses a principal's session over its share with 429, one over the total with 503, and opens one again once a session ends", async () => {
    const first = await initialize(serving.url, READER);
    assert.equal((await initialize(serving.url, READER)).status, 200);
    const third = await initialize(serving.url, READER);
    assert.equal(third.status, 429);
    const refusal = JSON.parse(third.text) as {
      error: { code: number; message: string; data: { limit: number; scope: string } };
    };
    assert.match(
      refusal.error.message,
      /^Session limit reached: the number of 2025-era sessions one principal \(or connection without auth\) may hold open is 2; end a session \(DELETE/,
    );
    assert.deepEqual(refusal.error.data, { limit: 2, scope: "sessionsPerPrincipal" });

    assert.equal((await initialize(serving.url, WRITER)).status, 200);
    const client = new Client({ name: "sessions-test", version: "0" });
    await assert.rejects(
      client.connect(
        new StreamableHTTPClientTransport(serving.url, {
          authProvider: { token: async () => WRITER },
        }),
      ),
      /Session limit reached: the number of 2025-era sessions this server holds open is 3/,
    );

    const ended = await fetch(serving.url, {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${READER}`,
        "mcp-session-id": first.session!,
        "mcp-protocol-version": "2025-11-25",
      },
    });
    assert.equal(ended.status, 200);
    assert.equal((await initialize(serving.url, READER)).status, 200);
  });
});

describe("a 2025-era session's protocol version", () => {
  let serving: HttpServing;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
  });
  after(() => serving.close());

  /** A request of `session` whose MCP-Protocol-Version header is `version` (none when null). */
  const listTools = (session: string, version: string | null) =>
    fetch(serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        ...(version !== null && { "mcp-protocol-version": version }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });

  it("is any version the server supports: another than the negotiated one is served (the MCP conformance suite's server-sse-multiple-streams sends 2025-03-26), one it does not support is 400", async () => {
    const { session } = await initialize(serving.url);
    for (const supported of ["2025-11-25", "2025-06-18", "2025-03-26", null])
      assert.equal((await listTools(session!, supported)).status, 200, String(supported));
    const refused = await listTools(session!, "1999-01-01");
    assert.equal(refused.status, 400);
    const answer = (await refused.json()) as { error: { code: number; message: string } };
    assert.equal(answer.error.code, -32000);
    assert.match(answer.error.message, /Unsupported protocol version/);
  });
});
