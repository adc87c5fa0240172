import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { natsServer, type NatsServer } from "../helpers/natsServer.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { serveExample } from "../helpers/serveExample.ts";
import { updatesListener, updatesReach } from "../helpers/updatesListener.ts";

const server = postgresServer();
const logical = server.url !== undefined && psql(server.url, "SHOW wal_level") === "logical";
const nats = await natsServer();

describe(
  "PostgreSQL on a bus: each change reaches the processes that watch its rows",
  {
    skip: server.skip ?? nats.skip ?? (logical ? false : "wal_level is not logical"),
  },
  () => {
    let bus: NatsServer;
    let databaseUrl: string;
    const children: ChildProcess[] = [];
    let watcher: { client: Client; updates: string[] };

    before(async () => {
      bus = nats.server!;
      databaseUrl = await emptyDatabase(server.url!);
      for (let i = 0; i < 2; i++) {
        const served = serveExample(databaseUrl, { LIVECMD_BUS: bus.url });
        children.push(served.child);
        if (i === 1) watcher = await updatesListener(await served.url, "bus");
        else await served.url;
      }
    });

    after(async () => {
      await watcher?.client.close();
      for (const child of children) child.kill("SIGKILL");
    });

    test("a psql write to a watched row notifies its watcher through the bus", async () => {
      const listen = await watcher.client.listen({
        resourceSubscriptions: ["app://customers_show/1"],
      });
      try {
        psql(databaseUrl, "UPDATE customers SET name = 'Ada Bus' WHERE id = 1");
        await updatesReach(watcher.updates, 1);
      } finally {
        await listen.close();
      }
    });
  },
);
