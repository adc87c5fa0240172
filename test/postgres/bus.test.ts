import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import pg from "pg";
import { BusListener } from "../../packages/livecmd/runtime/db/postgres/bus/busListener.ts";
import { connectBus } from "../../packages/livecmd/runtime/db/postgres/bus/busConnection.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { CATALOG_VERSION } from "../../packages/livecmd/runtime/model/catalog.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { installCapture } from "../../packages/livecmd/runtime/db/postgres/changes/installChangeFeed.ts";
import type { PgPool } from "../../packages/livecmd/runtime/db/postgres/pgLibrary.ts";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { natsServer, type NatsServer } from "../helpers/natsServer.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { serveExample } from "../helpers/serveExample.ts";
import { updatesListener } from "../helpers/updatesListener.ts";

const server = postgresServer();
const logical = server.url !== undefined && psql(server.url, "SHOW wal_level") === "logical";
// A client that cannot take what it is sent within 250 ms is cut off as a slow consumer; started
// only where the tests run.
const nats: Awaited<ReturnType<typeof natsServer>> = logical
  ? await natsServer('write_deadline: "250ms"\nmax_pending: 262144\nmax_payload: 65536\n')
  : { skip: "wal_level is not logical" };
const SHOW_1 = "app://customers_show/1";
/** How many of this database's slots are streamed (by the relay, when it has one). */
const ACTIVE_SLOTS =
  "SELECT count(*) FROM pg_replication_slots WHERE database = current_database() AND active";
/** Ends the connection on which the relay holds its lock (an advisory lock, livecmd's only one held). */
const TERMINATE_RELAY_LOCK =
  "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
/** Ends the relay's stream; how many it ended (0: none streamed). */
const TERMINATE_RELAY =
  "SELECT count(pg_terminate_backend(active_pid)) FROM pg_replication_slots WHERE database = current_database() AND active";

/** Until `holds()`, `ms` at most. */
async function until(holds: () => boolean | Promise<boolean>, ms: number, what: string) {
  for (let waited = 0; !(await holds()); waited += 50) {
    if (waited > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Connection {
  name: string;
  subscriptions_list?: string[];
}

/** The subjects each livecmd process listens on, by its pid, as nats-server lists them. */
async function subscriptionsByPid(bus: NatsServer): Promise<Map<number, string[]>> {
  const response = await fetch(`${bus.monitor}/connz?subs=1&limit=1000`);
  const { connections } = (await response.json()) as { connections: Connection[] };
  return new Map(
    connections
      .filter(({ name }) => name?.startsWith("livecmd "))
      .map(({ name, subscriptions_list = [] }) => [
        Number(name.slice(8)),
        // The client's own inbox, for its requests (JetStream's), is no route.
        subscriptions_list.filter((subject) => !subject.startsWith("_INBOX.")),
      ]),
  );
}

describe(
  "PostgreSQL on a bus: each change reaches the processes that watch its rows, and none is missed",
  {
    skip: server.skip ?? nats.skip ?? (logical ? false : "wal_level is not logical"),
    // Each test, and each hook below: a process that stops answering fails the test, never hangs
    // the run.
    timeout: 120_000,
  },
  () => {
    let bus: NatsServer;
    let databaseUrl: string;
    /**
     * The first process relays (until it is killed), the watcher's client is on the second: the
     * tests run in this order, the broker's restart last (after it, either may relay).
     */
    let relay: ChildProcess;
    let watching: ChildProcess;
    let watchingUrl: URL;
    let watcher: { client: Client; updates: string[] };
    const children: ChildProcess[] = [];

    async function serve(): Promise<{ child: ChildProcess; url: URL }> {
      const served = serveExample(databaseUrl, { LIVECMD_BUS: bus.url });
      children.push(served.child);
      return { child: served.child, url: await served.url };
    }

    /** The serving processes not killed. */
    const alive = () =>
      children.filter((child) => child.exitCode === null && child.signalCode === null);

    /**
     * `act` while `processes` are stopped, after the relay's stream and lock were ended: none of
     * them can take the slot meanwhile.
     */
    async function withRelaysStopped(
      processes: readonly ChildProcess[],
      act: () => Promise<void>,
    ): Promise<void> {
      for (const child of processes) child.kill("SIGSTOP");
      try {
        // A relay caught while it took the slot over may start streaming after a first end.
        await until(() => psql(databaseUrl, TERMINATE_RELAY) === "0", 10_000, "the slot is let go");
        psql(databaseUrl, TERMINATE_RELAY_LOCK);
        await act();
      } finally {
        for (const child of processes) child.kill("SIGCONT");
      }
    }

    /** Watches SHOW_1 while `act` runs, then waits until its name reads `name` and a notification said so. */
    async function heardWhile(name: string, act: () => Promise<void>): Promise<void> {
      const listen = await watcher.client.listen({ resourceSubscriptions: [SHOW_1] });
      watcher.updates.length = 0;
      try {
        await act();
        await until(() => watcher.updates.length > 0, 20_000, `a notification of ${name}`);
        await until(
          async () =>
            JSON.stringify((await watcher.client.readResource({ uri: SHOW_1 })).contents).includes(
              name,
            ),
          5_000,
          `${SHOW_1} reads ${name}`,
        );
      } finally {
        await listen.close();
      }
    }

    before(
      async () => {
        bus = nats.server!;
        databaseUrl = await emptyDatabase(server.url!);
        relay = (await serve()).child;
        await until(
          () => psql(databaseUrl, ACTIVE_SLOTS) === "1",
          10_000,
          "the first process relays",
        );
        const second = await serve();
        watching = second.child;
        watchingUrl = second.url;
        watcher = await updatesListener(second.url, "bus");
      },
      { timeout: 60_000 },
    );

    after(
      async () => {
        // A stopped watcher is killed too (SIGKILL reaches a stopped process), before its client
        // closes, so that nothing waits on it.
        for (const child of children) child.kill("SIGKILL");
        await watcher?.client.close();
      },
      { timeout: 30_000 },
    );

    test("a psql write to a watched row notifies its watcher, through the routes of what it watches alone", async () => {
      await heardWhile("Ada Bus", async () => {
        psql(databaseUrl, "UPDATE customers SET name = 'Ada Bus' WHERE id = 1");
      });
      const listen = await watcher.client.listen({ resourceSubscriptions: [SHOW_1] });
      try {
        const subscriptions = await subscriptionsByPid(bus);
        const watchers = subscriptions.get(watching.pid!)!;
        assert.ok(
          watchers.some((subject) => /\.k\.customers\.id\.[0-9a-f]{12}$/.test(subject)),
          `the watcher listens on customer 1's route: ${watchers.join(", ")}`,
        );
        assert.ok(!watchers.some((subject) => subject.endsWith(".t.customers")));
        assert.deepEqual(
          subscriptions
            .get(relay.pid!)!
            .map((subject) => subject.split(".").slice(2).join("."))
            .sort(),
          ["all", "beat"],
          "a process that watches nothing hears no table's changes",
        );
      } finally {
        await listen.close();
      }
    });

    test("a bus without JetStream: the app does not open, says to start nats-server with it, and /healthz says the bus", async () => {
      const plain = await natsServer("", false);
      const database = postgres(databaseUrl, { bus: plain.server!.url });
      const catalog = {
        catalogVersion: CATALOG_VERSION,
        app: "shop",
        watchTool: null,
        commands: [],
      };
      const generated = { catalog, templates: {} };
      const app = defineApp({
        name: "shop",
        commands: {},
        agent: { grant: [], watchTool: false },
        database,
        generated,
      });
      const serving = await serveHttp(app, { port: 0 });
      try {
        await assert.rejects(app.ready(), (error: Error) => {
          assert.match(
            error.message,
            /has no JetStream .*start nats-server with JetStream on \(nats-server -js, or jetstream \{\} in its configuration\)/,
          );
          return true;
        });
        const health = await fetch(new URL("/healthz", serving.url));
        assert.equal(health.status, 503);
        const { problem } = (await health.json()) as { problem: string };
        assert.match(problem, /^the bus at \S+ has no JetStream/, "the bus, not the database");
      } finally {
        await serving.close();
        await app.close();
        await plain.server!.stop();
      }
    });

    test("a change committed while a run read, before the server had the run's routes, is told by the run's fence", async () => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      const connection = await connectBus(bus.url, pool);
      const heard: TableChange[] = [];
      const listener = new BusListener(
        connection,
        () => pool,
        (changes) => heard.push(...changes),
        () => {},
      );
      try {
        await listener.start();
        const mark = listener.mark();
        // The run reads customer 2; meanwhile a write to it commits, and the relay routes it (a
        // caught-up marker travels behind it) while nobody listens on its route.
        psql(databaseUrl, "UPDATE customers SET name = 'While It Read' WHERE id = 2");
        await listener.caughtUp();
        listener.add({
          whole: new Set(),
          keyed: new Map([["customers", new Map([["id", new Set(["2"])]])]]),
          filtered: new Map(),
        });
        await listener.fence(mark);
        assert.ok(
          heard.some(({ table }) => table === "customers"),
          `the fence told the change: ${JSON.stringify(heard)}`,
        );
      } finally {
        await listener.close();
        await connection.nats.close();
        await pool.end();
      }
    });

    test("a watcher cut off as a slow consumer (stopped while a flood of writes is routed to it) is told of the last write once it runs again", async () => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      try {
        await heardWhile("After The Flood", async () => {
          watching.kill("SIGSTOP");
          try {
            // Each write changes twelve customers, customer 1 among them: about 6 KB on its
            // route, and 7,000 of them overflow what the kernel buffers for a stopped reader.
            const long = "x".repeat(150);
            for (let round = 0; round < 7_000; round++)
              await pool.query("UPDATE customers SET name = $1 || id WHERE id <= 12", [
                `${long}${round}`,
              ]);
            await pool.query("UPDATE customers SET name = 'After The Flood' WHERE id = 1");
            await until(
              async () => !(await subscriptionsByPid(bus)).has(watching.pid!),
              20_000,
              "nats-server cuts the stopped watcher off",
            );
          } finally {
            watching.kill("SIGCONT");
          }
        });
      } finally {
        await pool.end();
      }
    });

    test("the relay killed (SIGKILL): the other process takes the slot over and every write made meanwhile reaches the watcher", async () => {
      await heardWhile("After The Relay Died", async () => {
        relay.kill("SIGKILL");
        psql(databaseUrl, "UPDATE customers SET name = 'Nobody Relays' WHERE id = 1");
        psql(databaseUrl, "UPDATE customers SET name = 'After The Relay Died' WHERE id = 1");
      });
    });

    test("a slot made again by a process starting (the old one lost, a write made with none) has every process on the bus re-run its watches", async () => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      try {
        await heardWhile("Written With No Slot", async () => {
          // No process can make the slot again before the install below does.
          await withRelaysStopped(alive(), async () => {
            psql(
              databaseUrl,
              "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = current_database()",
            );
            psql(databaseUrl, "UPDATE customers SET name = 'Written With No Slot' WHERE id = 1");
            await installCapture(pool as unknown as PgPool, "logical", true);
          });
        });
      } finally {
        await pool.end();
      }
    });

    test("a process started again (after the relay died) relays and serves watches", async () => {
      const restarted = await serve();
      const again = await updatesListener(restarted.url, "bus-restarted");
      try {
        const listen = await again.client.listen({ resourceSubscriptions: [SHOW_1] });
        try {
          psql(databaseUrl, "UPDATE customers SET name = 'Restarted' WHERE id = 1");
          await until(() => again.updates.length > 0, 10_000, "the restarted process notifies");
        } finally {
          await listen.close();
        }
      } finally {
        await again.client.close();
      }
    });
    test("writes made while nats-server is down (killed) reach the watcher once it is back", async () => {
      await heardWhile("While The Bus Was Down", async () => {
        await bus.stop("SIGKILL");
        try {
          psql(databaseUrl, "UPDATE customers SET name = 'While The Bus Was Down' WHERE id = 1");
          await new Promise((resolve) => setTimeout(resolve, 500));
        } finally {
          await bus.start();
        }
      });
    });

    test("a process without the bus that relays is said by each process on the bus, which is not ready until a relay on the bus is heard again, then re-runs its watches", async () => {
      const busless = serveExample(databaseUrl);
      children.push(busless.child);
      await busless.url;
      const onBus = alive().filter((child) => child !== busless.child);
      const health = new URL("/healthz", watchingUrl);
      await heardWhile("Written While No Relay Routed", async () => {
        // No process on the bus can take the slot back before the one without does.
        await withRelaysStopped(onBus, () =>
          until(
            () => psql(databaseUrl, ACTIVE_SLOTS) === "1",
            10_000,
            "the process without the bus relays",
          ),
        );
        psql(
          databaseUrl,
          "UPDATE customers SET name = 'Written While No Relay Routed' WHERE id = 1",
        );
        await until(
          async () => {
            const answer = await fetch(health);
            return (
              answer.status === 503 &&
              (await answer.text()).includes("no relay routes this database's changes to the bus")
            );
          },
          15_000,
          "the watcher's /healthz says no relay routes to the bus",
        );
        busless.child.kill("SIGKILL");
      });
      // The watcher may have been told by another re-run (its bus connection came back): ready
      // again once a relay on the bus is heard, which takes the slot over within about 2 s.
      await until(
        async () => (await fetch(health)).status === 200,
        10_000,
        "the watcher's /healthz is ready again",
      );
    });
  },
);
