import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { updatesListener, updatesReach } from "../helpers/updatesListener.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { serveExample } from "../helpers/serveExample.ts";

const server = postgresServer();
const SHOW_1 = "app://customers_show/1";

describe(
  "PostgreSQL: two livecmd serve --http processes on one database",
  { skip: server.skip },
  () => {
    let databaseUrl: string;
    const children: ChildProcess[] = [];
    let a: Client;
    let b: { client: Client; updates: string[] };

    before(async () => {
      databaseUrl = await emptyDatabase(server.url!);
      const servers = [serveExample(databaseUrl), serveExample(databaseUrl)];
      children.push(...servers.map(({ child }) => child));
      const [urlA, urlB] = await Promise.all(servers.map(({ url }) => url));
      a = (await updatesListener(urlA!, "two-processes")).client;
      b = await updatesListener(urlB!, "two-processes");
    });

    after(async () => {
      await a?.close();
      await b?.client.close();
      for (const child of children) child.kill("SIGTERM");
    });

    test("both start on the empty database at once; it is created and seeded once", async () => {
      const [fromA, fromB] = await Promise.all([
        a.readResource({ uri: SHOW_1 }),
        b.client.readResource({ uri: SHOW_1 }),
      ]);
      assert.deepEqual(fromA.contents, fromB.contents);
      assert.equal(psql(databaseUrl, "SELECT COUNT(*) FROM customers"), "2000");
      assert.equal(psql(databaseUrl, "SELECT COUNT(*) FROM example_schema"), "1");
    });

    test("a listen on B is notified of a tools/call write on A and of a psql write, and of no write that leaves the result as it was", async () => {
      const listen = await b.client.listen({ resourceSubscriptions: [SHOW_1] });
      try {
        assert.deepEqual(listen.honoredFilter.resourceSubscriptions, [SHOW_1]);
        const renamed = (await a.callTool({
          name: "customers_rename",
          arguments: { id: 1, name: "Ada King" },
        })) as CallToolResult;
        assert.equal(renamed.isError, undefined);
        await updatesReach(b.updates, 1);

        psql(databaseUrl, "UPDATE customers SET name = 'Ada Byron' WHERE id = 1");
        await updatesReach(b.updates, 2);

        // Writes that re-run B's subscription without changing what it returns.
        psql(databaseUrl, "UPDATE customers SET name = name WHERE id = 1");
        await a.callTool({ name: "customers_rename", arguments: { id: 1, name: "Ada Byron" } });
        await a.callTool({
          name: "customers_rename",
          arguments: { id: 500, name: "Somebody Else" },
        });
        // Runs of one subscription are in order, so a notification owed to those would come first.
        psql(databaseUrl, "UPDATE customers SET name = 'Ada Lovelace' WHERE id = 1");
        await updatesReach(b.updates, 3);
        assert.deepEqual(b.updates, [SHOW_1, SHOW_1, SHOW_1]);
        const shown = await b.client.readResource({ uri: SHOW_1 });
        assert.match(JSON.stringify(shown.contents), /Ada Lovelace/);
      } finally {
        await listen.close();
      }
    });
  },
);
