import assert from "node:assert/strict";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  initialize,
  openGetStream,
  openListen,
  sessionRequest,
  untilEnd,
} from "../helpers/rawStreams.ts";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";
import type { Era } from "../helpers/servedExample.ts";
import { tokensFile } from "../helpers/tokensFile.ts";
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import {
  mcpHandler,
  serveHttp,
  staticTokens,
  type StaticTokens,
} from "../../packages/livecmd/runtime/server/index.ts";
import { TOKEN_ENDED } from "../../packages/livecmd/runtime/server/errors/protocolErrors.ts";
import type { WatchAnswer } from "../../packages/livecmd/runtime/testing/index.ts";

const READER = "reader-secret-0123";
const WRITER = "writer-secret-0123";

describe("a token removed from the tokens file (SIGHUP)", () => {
  let served: ServedCli;
  let file: string;
  before(async () => {
    file = tokensFile(
      `${READER} customers:read # reader\n${WRITER} customers:read customers:write # writer\n`,
    );
    served = await servedCli(["--tokens", file]);
  });
  after(() => served.close());

  it(
    "ends that principal's listens, GET streams and sessions, and no one else's",
    { timeout: 20_000 },
    async () => {
      const listen = await openListen(served.url, ["app://customers_show/1"], READER);
      assert.equal(listen.status, 200);
      const readerSession = (await initialize(served.url, READER)).session!;
      const stream = await openGetStream(served.url, readerSession, READER);
      assert.equal(stream.status, 200);
      const writerSession = (await initialize(served.url, WRITER)).session!;

      writeFileSync(file, `${WRITER} customers:read customers:write # writer\n`);
      served.child.kill("SIGHUP");
      await served.stderrLine(/re-read .*: 1 tokens/);
      await Promise.all([untilEnd(listen), untilEnd(stream)]);

      const again = await sessionRequest(
        served.url,
        writerSession,
        { id: 2, method: "tools/list" },
        WRITER,
      );
      assert.equal(again.status, 200, "the writer's session is still served");
      await again.text();
      const refused = await sessionRequest(
        served.url,
        readerSession,
        { id: 2, method: "tools/list" },
        READER,
      );
      assert.equal(refused.status, 401);
      await refused.text();
    },
  );
});

const WATCHED = "app://customers_show/12";
const FACES = [
  {
    face: "serveHttp",
    serve: async (auth: StaticTokens) => {
      const serving = await serveHttp(createExampleApp(":memory:"), { port: 0, auth });
      return { url: serving.url, close: () => serving.close() };
    },
  },
  {
    face: "mcpHandler mounted in node:http",
    serve: async (auth: StaticTokens) => {
      const mcp = mcpHandler(createExampleApp(":memory:"), { auth });
      const server = createServer((request, response) => void mcp.node(request, response));
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      const { port } = server.address() as AddressInfo;
      return {
        url: new URL(`http://127.0.0.1:${port}/mcp`),
        close: async () => {
          await mcp.close();
          server.close();
        },
      };
    },
  },
] as const;

async function connected(url: URL, era: Era, token: string): Promise<Client> {
  const client = new Client(
    { name: "watcher", version: "0" },
    { versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A watch tool call that waits on `WATCHED` from the version it has now, for up to 20 s. */
async function waitingWatch(client: Client): Promise<{ waiting: Promise<CallToolResult> }> {
  const first = await client.callTool({
    name: "watch_resources",
    arguments: { resources: [{ uri: WATCHED }] },
  });
  const { resources } = first.structuredContent as unknown as WatchAnswer;
  const waiting = client.callTool({
    name: "watch_resources",
    arguments: { resources, timeoutMs: 20_000 },
  }) as Promise<CallToolResult>;
  return { waiting };
}

for (const { face, serve } of FACES) {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    describe(`a revoked token's waiting watch call (${face}, ${era})`, () => {
      it(
        "ends at once with an error and no data, while the call of a token still good waits on",
        { timeout: 20_000 },
        async () => {
          const file = tokensFile(
            `${READER} customers:read # reader\n${WRITER} customers:read customers:write # writer\n`,
          );
          const auth = staticTokens(file);
          const served = await serve(auth);
          const reader = await connected(served.url, era, READER);
          const writer = await connected(served.url, era, WRITER);
          const readerCall = tracked((await waitingWatch(reader)).waiting);
          const writerCall = tracked((await waitingWatch(writer)).waiting);
          writeFileSync(file, `${WRITER} customers:read customers:write # writer\n`);
          const revokedAt = performance.now();
          auth.reload();
          const ended = await readerCall.promise.then(
            () => assert.fail("the revoked call answered"),
            (error: unknown) => error,
          );
          assert.ok(performance.now() - revokedAt < 5_000, "ended long before its 20 s wait");
          assert.ok(ended instanceof ProtocolError, String(ended));
          assert.equal(ended.code, TOKEN_ENDED);
          assert.match(ended.message, /revoked or expired while it waited/);
          assert.equal(writerCall.settled(), false, "the writer's call still waits");
          await writer.callTool({
            name: "customers_rename",
            arguments: { id: 12, name: "Twelve" },
          });
          const answer = (await writerCall.promise).structuredContent as unknown as WatchAnswer;
          assert.equal(answer.status, "changed");
          await Promise.all([reader.close().catch(() => undefined), writer.close()]);
          await served.close();
        },
      );
    });
  }
}

/** Whether a promise has settled yet, read at any time. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled(): boolean } {
  let settled = false;
  const observed = promise.finally(() => (settled = true));
  observed.catch(() => undefined);
  return { promise: observed, settled: () => settled };
}
