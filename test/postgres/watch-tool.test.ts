import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { WatchAnswer } from "../../packages/livecmd/runtime/testing/index.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";

const server = postgresServer();
const SHOW_12 = "app://customers_show/12";

/** A 2026-07-28 SDK client of one replica, calling tools only. */
async function toolsClient(url: URL): Promise<Client> {
  const client = new Client(
    { name: "watch-replicas", version: "0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

async function watch(client: Client, args: Record<string, unknown>): Promise<WatchAnswer> {
  const result = await client.callTool({ name: "watch_resources", arguments: args });
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  return result.structuredContent as unknown as WatchAnswer;
}

describe(
  "PostgreSQL: the watch tool on one replica answers for a change committed on another",
  { skip: server.skip },
  () => {
    let databaseUrl: string;
    const replicas: ServedCli[] = [];
    let a: Client;
    let b: Client;

    before(async () => {
      databaseUrl = await emptyDatabase(server.url!);
      replicas.push(await servedCli([], { databaseUrl }));
      replicas.push(await servedCli([], { databaseUrl }));
      a = await toolsClient(replicas[0]!.url);
      b = await toolsClient(replicas[1]!.url);
    });

    after(async () => {
      await a?.close();
      await b?.close();
      await Promise.all(replicas.map((replica) => replica.close()));
    });

    test("a call waiting on B ends with a write through A's tool, then with a psql write", async () => {
      const { resources } = await watch(b, { resources: [{ uri: SHOW_12 }] });
      const [seenOnA] = (await watch(a, { resources: [{ uri: SHOW_12 }] })).resources;
      assert.deepEqual(seenOnA, resources[0], "every replica gives one result one version");
      const waiting = watch(b, { resources, timeoutMs: 20_000 });
      // Waiting on B before the write: a version that is still current does not answer at once.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await a.callTool({ name: "customers_rename", arguments: { id: 12, name: "Twelve" } });
      const renamed = await waiting;
      assert.equal(renamed.status, "changed");
      assert.equal((renamed.changed[0]!.value as { name: string }).name, "Twelve");

      const again = watch(b, { resources: renamed.resources, timeoutMs: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      psql(databaseUrl, "UPDATE customers SET name = 'Twelve Again' WHERE id = 12");
      const fromPsql = await again;
      assert.equal((fromPsql.changed[0]!.value as { name: string }).name, "Twelve Again");
    });
  },
);
