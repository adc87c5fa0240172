import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { livecmd } from "../helpers/cli.ts";
import { updatesListener, updatesReach } from "../helpers/updatesListener.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { serveExample } from "../helpers/serveExample.ts";

const server = postgresServer();
const SHOW_1 = "app://customers_show/1";
const logical = server.url !== undefined && psql(server.url, "SHOW wal_level") === "logical";

/** Until `holds()`, `ms` at most: the relay is another process's, and takes over on a timer. */
async function until(holds: () => boolean, ms: number, what: string): Promise<void> {
  for (let waited = 0; !holds(); waited += 20) {
    if (waited > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a process streams the database's slot now. */
function slotStreamed(databaseUrl: string): boolean {
  return (
    psql(
      databaseUrl,
      "SELECT coalesce(bool_or(active), false) FROM pg_replication_slots WHERE database = current_database()",
    ) === "t"
  );
}

describe(
  "PostgreSQL, logical decoding: one relay, taken over when it dies",
  { skip: server.skip ?? (logical ? false : "wal_level is not logical") },
  () => {
    let databaseUrl: string;
    let relay: ChildProcess;
    let survivor: ChildProcess;
    let listener: { client: Client; updates: string[] };

    before(async () => {
      databaseUrl = await emptyDatabase(server.url!);
      const first = serveExample(databaseUrl);
      relay = first.child;
      await first.url;
      await until(() => slotStreamed(databaseUrl), 10_000, "the first process relays");
      const second = serveExample(databaseUrl);
      survivor = second.child;
      listener = await updatesListener(await second.url, "logical-relay");
    });

    after(async () => {
      await listener?.client.close();
      for (const child of [relay, survivor]) child?.kill("SIGKILL");
    });

    test("db status names the backend that streams the slot; db uninstall refuses while one does, and removes nothing", async () => {
      const status = await livecmd(["db", "status", "--url", databaseUrl]);
      assert.equal(status.code, 0, status.stdout);
      assert.match(
        status.stdout,
        /\nlivecmd: slot livecmd_\d+: streamed by backend \d+ \(a serving process's relay\); /,
      );
      const refused = await livecmd(["db", "uninstall", "--url", databaseUrl]);
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr,
        /^livecmd: a livecmd process relays this database's changes \(slot livecmd_\d+, streamed by backend pid \d+\); stop every process that serves the app, then run db uninstall again\n$/,
      );
      assert.equal(
        psql(databaseUrl, "SELECT count(*) FROM pg_publication WHERE pubname = 'livecmd'"),
        "1",
      );
      assert.ok(slotStreamed(databaseUrl));
    });

    test("a relay that stalls (SIGSTOP) holds no writer up, keeps its slot, and once it runs again every write made meanwhile reaches the other process", async () => {
      const listen = await listener.client.listen({ resourceSubscriptions: [SHOW_1] });
      try {
        relay.kill("SIGSTOP");
        try {
          // Each commits at once, though nobody passes its change on.
          for (const name of ["Stalled One", "Stalled Two", "Stalled Three"])
            psql(databaseUrl, `UPDATE customers SET name = '${name}' WHERE id = 1`);
          const status = await livecmd(["db", "status", "--url", databaseUrl]);
          // WAL is the cluster's: other databases' writes meanwhile count too (MB under load).
          assert.match(status.stdout, /, [1-9][\d.]* (B|kB|MB|GB) not yet passed on; /);
          assert.ok(slotStreamed(databaseUrl), "a stalled relay keeps its slot");
          assert.deepEqual(listener.updates, []);
        } finally {
          relay.kill("SIGCONT");
        }
        await until(() => listener.updates.length > 0, 5_000, "the writes reach the listener");
        const shown = await listener.client.readResource({ uri: SHOW_1 });
        assert.match(JSON.stringify(shown.contents), /Stalled Three/);
      } finally {
        await listen.close();
        listener.updates.length = 0;
      }
    });

    test("a write is told to the process that does not relay; killed, the relay's slot is taken over and no write made meanwhile is lost", async () => {
      const listen = await listener.client.listen({ resourceSubscriptions: [SHOW_1] });
      try {
        psql(databaseUrl, "UPDATE customers SET name = 'Before The Kill' WHERE id = 1");
        await updatesReach(listener.updates, 1);

        relay.kill("SIGKILL");
        await until(() => !slotStreamed(databaseUrl), 5_000, "the killed relay's slot is let go");
        // Written while nobody relays: the slot keeps them for whoever takes it over.
        psql(databaseUrl, "UPDATE customers SET name = 'Nobody Relays' WHERE id = 1");
        psql(databaseUrl, "UPDATE customers SET name = 'Still Nobody' WHERE id = 1");
        await until(() => slotStreamed(databaseUrl), 10_000, "the survivor takes the slot over");
        await until(() => listener.updates.length >= 2, 5_000, "the survivor hears the writes");
        const shown = await listener.client.readResource({ uri: SHOW_1 });
        assert.match(JSON.stringify(shown.contents), /Still Nobody/);

        psql(databaseUrl, "UPDATE customers SET name = 'After The Takeover' WHERE id = 1");
        const heard = listener.updates.length;
        await updatesReach(listener.updates, heard + 1);
      } finally {
        await listen.close();
      }
    });

    test("the relay's lock connection ended by the server: its process goes on serving, relays again, and tells a write made then", async () => {
      const listen = await listener.client.listen({ resourceSubscriptions: [SHOW_1] });
      try {
        const heard = listener.updates.length;
        psql(
          databaseUrl,
          "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        psql(databaseUrl, "UPDATE customers SET name = 'The Lock Was Lost' WHERE id = 1");
        await until(() => listener.updates.length > heard, 10_000, "the write is told");
        await until(() => slotStreamed(databaseUrl), 10_000, "a process relays again");
        assert.equal(
          survivor.exitCode ?? survivor.signalCode,
          null,
          "the relaying process still runs",
        );
      } finally {
        await listen.close();
      }
    });
  },
);
