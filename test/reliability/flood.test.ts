import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type McpSubscription,
} from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp, staticTokens } from "../../packages/livecmd/runtime/server/index.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

/** Small limits, so that a flood reaches them in a test; the defaults are the same rules larger. */
const LIMITS = { listensPerPrincipal: 8, perPrincipal: 768, listensTotal: 32, total: 2048 };

function tokens(): string {
  return tokensFile("flood-secret-0123 # flooder\nvictim-secret-0123 customers:write # victim\n");
}

async function clientOf(url: URL, token: string, pinModern: boolean): Promise<Client> {
  const client = new Client(
    { name: "flood", version: "0" },
    pinModern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, { authProvider: { token: async () => token } }),
  );
  return client;
}

const shows = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `app://customers_show/${from + i}`);

async function refusal(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ProtocolError, `refused with a protocol error, got ${String(error)}`);
  return error;
}

describe("one principal floods the server with listens and subscriptions", () => {
  it("is held at its own limits (-32602 with data.limit) while another principal still listens, reads and is notified", async () => {
    const app = createExampleApp(":memory:");
    const serving = await serveHttp(app, { port: 0, auth: staticTokens(tokens()), limits: LIMITS });
    const flooder = await clientOf(serving.url, "flood-secret-0123", true);
    const legacyFlooder: Client[] = [];
    const listens: McpSubscription[] = [];
    try {
      // 2026-07-28: listens of 64 URIs each until the principal's listen limit answers.
      for (let i = 0; i < LIMITS.listensPerPrincipal; i++)
        listens.push(await flooder.listen({ resourceSubscriptions: shows(1 + 64 * i, 64) }));
      const listenRefused = await refusal(flooder.listen({ resourceSubscriptions: shows(1, 1) }));
      assert.equal(listenRefused.code, -32602);
      assert.deepEqual(listenRefused.data, {
        limit: LIMITS.listensPerPrincipal,
        scope: "listensPerPrincipal",
      });

      // 2025 era: the principal's sessions add to the 8 x 64 URIs its listens watch, until the
      // URIs it may watch in all (both eras) are used up.
      let subscribeRefused: ProtocolError | undefined;
      for (let session = 0; session < 8 && !subscribeRefused; session++) {
        const client = await clientOf(serving.url, "flood-secret-0123", false);
        legacyFlooder.push(client);
        for (const uri of shows(1000 + 64 * session, 64)) {
          const outcome = await client.subscribeResource({ uri }).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (outcome instanceof ProtocolError) {
            subscribeRefused = outcome;
            break;
          }
        }
      }
      assert.ok(subscribeRefused, "the flooder's subscriptions are refused at some point");
      assert.equal(subscribeRefused.code, -32602);
      assert.deepEqual(subscribeRefused.data, {
        limit: LIMITS.perPrincipal,
        scope: "perPrincipal",
      });

      // The victim is not held by the flooder's limits.
      const victim = await clientOf(serving.url, "victim-secret-0123", true);
      const updated = new Promise<string>((resolve) =>
        victim.setNotificationHandler("notifications/resources/updated", (notification) =>
          resolve(notification.params.uri),
        ),
      );
      const watching = await victim.listen({ resourceSubscriptions: ["app://customers_show/2"] });
      assert.deepEqual(watching.honoredFilter.resourceSubscriptions, ["app://customers_show/2"]);
      const read = await victim.readResource({ uri: "app://customers_show/2" });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).id, 2);
      await victim.callTool({
        name: "customers_rename",
        arguments: { id: 2, name: "Grace B. Hopper" },
      });
      assert.equal(await updated, "app://customers_show/2");
      await watching.close();
      await victim.close();
    } finally {
      for (const listen of listens) await listen.close();
      await flooder.close();
      for (const client of legacyFlooder) await client.close();
      await serving.close();
    }
  });
});
