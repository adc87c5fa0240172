import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, test } from "node:test";
import { defineApp } from "../../packages/livecmd/runtime/index.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { queryCommand, watch } from "../helpers/differentialLive.ts";
import { emptyDatabase, ownCluster, psql, relayStreams } from "../helpers/postgres.ts";

// A cluster of its own: the test makes every commit wait for a synchronous standby that never
// answers, which would stop any other test's writes.
const cluster = ownCluster("logical");

const READS = [["SELECT body FROM notes WHERE id = ?"]] as const;

/** Until `holds()`, ten seconds at most. */
async function until(holds: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !holds(); waited += 20) {
    if (waited > 10_000) assert.fail(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(
  "PostgreSQL, logical decoding: a commit is passed on once every session sees it",
  { skip: cluster.skip },
  () => {
    test("a write flushed but not yet shown to other sessions (its backend awaits a synchronous standby) notifies its readers once it shows, with its new rows", async () => {
      const url = await emptyDatabase(cluster.url!);
      psql(
        url,
        "CREATE TABLE notes (id integer PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'old')",
      );
      psql(url, "ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
      psql(url, "SELECT pg_reload_conf()");
      // The app's own commits (the relay's notifications, caught-up markers) do not wait for the standby.
      const appUrl = `${url}&options=${encodeURIComponent("-c synchronous_commit=local")}`;
      const query = queryCommand(READS);
      const app = defineApp({
        name: "notes",
        commands: { query },
        agent: { grant: [query] },
        database: postgres(appUrl, { capture: "logical" }),
      });
      try {
        const watched = await watch(app, "rows", [[0, [1]]]);
        await until(() => relayStreams(url), "the relay streams");
        const writer = spawn("psql", [url, "-XAtqc", "UPDATE notes SET body = 'new' WHERE id = 1"]);
        await until(
          () =>
            psql(url, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") === "1",
          "the write waits for the standby",
        );
        await until(
          () =>
            psql(
              url,
              "SELECT bool_and(sent_lsn >= pg_current_wal_flush_lsn()) FROM pg_stat_replication WHERE application_name = 'livecmd relay'",
            ) === "t",
          "the relay was sent the commit",
        );
        // Long enough for a relay that passed the commit on at once to have re-run its reader.
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(
          psql(url, "SELECT body FROM notes WHERE id = 1"),
          "old",
          "other sessions do not see the write yet",
        );
        psql(
          url,
          "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
        );
        await once(writer, "exit");
        await app.db.caughtUp();
        await watched.live.settled();
        assert.deepEqual(watched.received, ["q://0/[1]"]);
        watched.live.close();
      } finally {
        psql(url, "ALTER SYSTEM RESET synchronous_standby_names");
        psql(url, "SELECT pg_reload_conf()");
        await app.close();
      }
    });
  },
);
