import assert from "node:assert/strict";
import { describe, test } from "node:test";
import pg from "pg";
import { command, defineApp, postgres } from "../../packages/livecmd/runtime/index.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import {
  emptyDatabase,
  ownCluster,
  postgresServer,
  psql,
  relayStreams,
} from "../helpers/postgres.ts";

const ITEMS = 12;
/** Far longer than any of these statements takes: past it, a run waits for a connection it never gets. */
const PATIENCE_MS = 15_000;

async function until(holds: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !holds(); waited += 25) {
    if (waited > PATIENCE_MS) assert.fail(`${what}: not within ${PATIENCE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function within<T>(running: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not within ${PATIENCE_MS / 1000} s`)),
      PATIENCE_MS,
    );
  });
  return Promise.race([running, late]).finally(() => clearTimeout(timer));
}

describe("on PostgreSQL, livecmd's long-held connections (the change feed's LISTEN, the relay's lock) are its own: the app's pool keeps every connection for its runs", () => {
  const cases = [
    {
      rule: "triggers capture (its LISTEN held), a pool of 1",
      capture: "triggers",
      max: 1,
      server: () => postgresServer(),
    },
    {
      rule: "logical capture (its LISTEN and the relay's lock held), a pool of 2",
      capture: "logical",
      max: 2,
      // A cluster of its own, with logical decoding, whatever the shared one has.
      server: () => ownCluster("logical"),
    },
  ] as const;
  for (const { rule, capture, max, server: serverOf } of cases) {
    const server = serverOf();
    test(`${rule}: ${ITEMS} writes at once, each notified`, { skip: server.skip }, async () => {
      const url = await emptyDatabase(server.url!);
      psql(
        url,
        `CREATE TABLE items (id integer PRIMARY KEY, qty integer NOT NULL);
           INSERT INTO items SELECT id, 0 FROM generate_series(1, ${ITEMS}) AS id`,
      );
      const pool = new pg.Pool({ connectionString: url, max });
      const items_show = command({ live: true }, async (_ctx, id: number) => {
        const { rows } = await pool.query("SELECT qty FROM items WHERE id = $1", [id]);
        return rows[0];
      });
      const items_bump = command({}, async (_ctx, id: number) => {
        await pool.query("UPDATE items SET qty = qty + 1 WHERE id = $1", [id]);
      });
      const app = defineApp({
        name: "items",
        commands: { items_show, items_bump },
        agent: { grant: [items_show, items_bump] },
        database: postgres(pool, { capture }),
      });
      const live = new LiveRegistry(app, {
        onError: ({ command, error }) =>
          assert.fail(`a re-run of ${command} failed: ${String(error)}`),
      });
      try {
        const notified = new Set<string>();
        for (let id = 1; id <= ITEMS; id++) {
          const uri = `items://items_show/${id}`;
          await within(
            live.add("items_show", [id], { uri, notify: () => notified.add(uri) }),
            `watching ${uri}`,
          );
        }
        if (capture === "logical") await until(() => relayStreams(url), "the relay streams");
        const engine = engineOf(app);
        await within(
          Promise.all(
            Array.from({ length: ITEMS }, (_, i) =>
              engine.run("items_bump", [i + 1], { origin: Origin.Agent }),
            ),
          ),
          `${ITEMS} writes through a pool of ${max}`,
        );
        await until(() => notified.size === ITEMS, `${ITEMS} notified`);
        assert.equal(psql(url, "SELECT sum(qty) FROM items"), String(ITEMS));
      } finally {
        live.close();
        await app.close();
        await pool.end();
      }
    });
  }
});

describe("on PostgreSQL through the app's own pool, a watch opened while the database still opens misses no write", () => {
  const server = postgresServer();
  test(
    "its first run waits until the change feed is heard: a write it makes (or anyone makes) is then notified, or read",
    { skip: server.skip },
    async () => {
      const url = await emptyDatabase(server.url!);
      psql(
        url,
        "CREATE TABLE items (id integer PRIMARY KEY, qty integer NOT NULL); INSERT INTO items VALUES (1, 0)",
      );
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      // The run reads, then writes once: read and written before the change feed is listened to,
      // the write is never heard, and the watch keeps the value it read.
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const items_show = command({ live: true }, async (_ctx, id: number) => {
        const { rows } = await pool.query("SELECT qty FROM items WHERE id = $1", [id]);
        if (rows[0].qty === 0) {
          await pool.query("UPDATE items SET qty = 1 WHERE id = $1", [id]);
          wrote();
        }
        return rows[0];
      });
      const app = defineApp({
        name: "items",
        commands: { items_show },
        agent: { grant: [items_show] },
        database: postgres(pool, {
          capture: "triggers",
          // A slow setUp (a migration) holds the change feed's start back. It ends as soon as the
          // run has written, when that comes first (the run did not wait for it), else after 2 s.
          setUp: () =>
            Promise.race([written, new Promise<void>((resolve) => setTimeout(resolve, 2_000))]),
        }),
      });
      const live = new LiveRegistry(app);
      try {
        const uri = "items://items_show/1";
        let notified = 0;
        await within(
          live.add("items_show", [1], { uri, notify: () => (notified += 1) }),
          `watching ${uri}`,
        );
        await live.settled();
        assert.equal(live.resultOf("items_show", [1])?.text, JSON.stringify({ qty: 1 }));
        assert.equal(notified, 1);
      } finally {
        live.close();
        await app.close();
        await pool.end();
      }
    },
  );
});
