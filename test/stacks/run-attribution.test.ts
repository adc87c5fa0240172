import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { eq } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { integer as pgInteger, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import {
  command,
  defineApp,
  postgres,
  prisma,
  type App,
  type DatabaseSource,
} from "../../packages/livecmd/runtime/index.ts";
import { PrismaClient as SqlitePrismaClient } from "../../examples/prisma/client/client.ts";
import { PrismaClient as PostgresPrismaClient } from "../../examples/prisma/postgres/client/client.ts";
import { readKeys, runObserved } from "../helpers/observedRuns.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { SQLITE_DRIVERS, type TestConnection } from "../helpers/sqliteDrivers.ts";

/**
 * A statement belongs to the run in whose async context the app called its library, however
 * the library queues it: each stack below is given far more concurrent runs than it has
 * connections (pg-pool hands a waiting caller its client from the run that released one; Kysely
 * and Prisma keep queues of their own), and every run must be told of its own note and no other.
 */
const RUNS = 16;
// author_id and body for the notes example's Prisma clients (examples/prisma/schema.prisma).
const NOTES = `CREATE TABLE notes (id integer PRIMARY KEY, author_id integer NOT NULL DEFAULT 1,
                                   title text NOT NULL, body text NOT NULL DEFAULT '');
  INSERT INTO notes (id, title) VALUES ${Array.from({ length: RUNS }, (_, i) => `(${i + 1}, 't${i + 1}')`).join(", ")};`;

/** How an app reads note `id`: through a library over the handle livecmd is given. */
type Read = (id: number) => Promise<unknown>;

/** A read of note `id` as `readKeys` prints it: SQLite's rowid a number, PostgreSQL's feed text. */
const OWN_KEY = {
  sqlite: (id: number) => `notes.rowid = ${id}`,
  postgres: (id: number) => `notes.id = '${id}'`,
};

/**
 * `RUNS` runs of a live command reading note `id` twice, a random pause before each read so
 * they interleave; each must have been told `notes` by its own key, once per statement. They
 * start as the app opens its database, before livecmd has installed anything there.
 */
async function eachRunToldItsOwn(
  source: DatabaseSource,
  read: Read,
  ownKey: (id: number) => string,
): Promise<void> {
  const show = command({ live: true }, async (_ctx, id: number) => {
    for (let statement = 0; statement < 2; statement++) {
      await sleep(Math.random() * 3);
      await read(id);
    }
  });
  const app: App = defineApp({
    name: "attribution",
    commands: { show },
    agent: { grant: [show] },
    database: source,
  });
  try {
    const runs = Array.from({ length: RUNS }, (_, i) => runObserved(app, "show", [i + 1]));
    await Promise.all(runs.map(({ running }) => running));
    const told = runs.map(({ reads }) => readKeys(app, reads));
    const own = runs.map((_, i) => [ownKey(i + 1), ownKey(i + 1)]);
    assert.deepEqual(told, own, "each run is told its own two statements, and no other run's");
  } finally {
    await app.close();
  }
}

const server = postgresServer();

describe(
  "on PostgreSQL, a pool of 2 and 16 runs at once: each statement is told to the run that made it",
  { skip: server.skip },
  () => {
    const pgNotes = pgTable("notes", { id: pgInteger("id").primaryKey(), title: pgText("title") });

    /**
     * On a fresh database each: nothing said on the log (no statement explained before livecmd's
     * schema is there), and once the app is closed, the app's own `pool.end()` resolves.
     */
    const onHandle = <Handle extends pg.Pool | pg.Client>(
      name: string,
      open: (url: string) => Promise<Handle>,
      read: (handle: Handle) => Read,
    ) => {
      test(name, async () => {
        const url = await emptyDatabase(server.url!);
        psql(url, NOTES);
        const handle = await open(url);
        const said: string[] = [];
        const source = postgres(handle as pg.Pool, { log: (line) => said.push(line) });
        try {
          await eachRunToldItsOwn(source, read(handle), OWN_KEY.postgres);
          assert.deepEqual(said, []);
        } finally {
          await endsWithin(handle.end(), `${name}: the app's own end() after app.close()`);
        }
      });
    };
    const onPool = (name: string, read: (pool: pg.Pool) => Read) =>
      onHandle(name, async (url) => new pg.Pool({ connectionString: url, max: 2 }), read);
    const SELECT = "SELECT title FROM notes WHERE id = $1";

    onPool("pool.query, awaited", (pool) => (id) => pool.query(SELECT, [id]));
    onPool(
      "pool.query with a callback",
      (pool) => (id) =>
        new Promise((resolve, reject) =>
          pool.query(SELECT, [id], (error, result) => (error ? reject(error) : resolve(result))),
        ),
    );
    onPool("pool.connect(), then client.query", (pool) => async (id) => {
      const client = await pool.connect();
      try {
        return await client.query(SELECT, [id]);
      } finally {
        client.release();
      }
    });
    onPool(
      "pool.connect with a callback, then client.query",
      (pool) => (id) =>
        new Promise((resolve, reject) =>
          pool.connect((error, client, release) => {
            if (error) return reject(error);
            client!.query(SELECT, [id]).then(resolve, reject).finally(release);
          }),
        ),
    );
    onPool("Drizzle (drizzle-orm/node-postgres)", (pool) => {
      const orm = drizzlePg(pool);
      return (id) => orm.select().from(pgNotes).where(eq(pgNotes.id, id));
    });
    onPool("a Drizzle transaction", (pool) => {
      const orm = drizzlePg(pool);
      return (id) => orm.transaction((tx) => tx.select().from(pgNotes).where(eq(pgNotes.id, id)));
    });
    onPool("Kysely's PostgresDialect", (pool) => {
      const db = new Kysely<NotesTable>({ dialect: new PostgresDialect({ pool }) });
      return (id) => db.selectFrom("notes").selectAll().where("id", "=", id).execute();
    });
    onPool("a Kysely transaction", (pool) => {
      const db = new Kysely<NotesTable>({ dialect: new PostgresDialect({ pool }) });
      return (id) =>
        db
          .transaction()
          .execute((trx) => trx.selectFrom("notes").selectAll().where("id", "=", id).execute());
    });
    onPool("Prisma 7 through @prisma/adapter-pg", (pool) => {
      const client = new PostgresPrismaClient({ adapter: new PrismaPg(pool) });
      return (id) => client.note.findFirst({ where: { id } });
    });
    onPool("a Prisma interactive transaction", (pool) => {
      const client = new PostgresPrismaClient({ adapter: new PrismaPg(pool) });
      return (id) => client.$transaction((tx) => tx.note.findFirst({ where: { id } }));
    });

    onHandle(
      "one pg.Client that every run shares",
      async (url) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        return client;
      },
      (client) => (id) => client.query(SELECT, [id]),
    );
  },
);

/** `ending`, which must settle within 5 s. */
async function endsWithin(ending: Promise<void>, what: string): Promise<void> {
  const late = sleep(5_000, "late", { ref: false });
  assert.notEqual(await Promise.race([ending, late]), "late", `${what} did not resolve within 5 s`);
}

interface NotesTable {
  notes: { id: number; title: string };
}

const sqliteNotes = sqliteTable("notes", { id: integer("id").primaryKey(), title: text("title") });

for (const driver of SQLITE_DRIVERS)
  describe(
    `on SQLite through ${driver.name}, 16 runs at once: each statement is told to the run that made it`,
    { skip: driver.skip },
    () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-attribution-"));
      const file = path.join(folder, "notes.sqlite");
      before(() => {
        const setup = driver.open(file);
        setup.exec(NOTES);
        setup.close();
      });
      after(() => rmSync(folder, { recursive: true, force: true }));

      const onHandle = (name: string, read: (handle: TestConnection) => Read) => {
        test(name, () => {
          const handle = driver.open(file);
          return eachRunToldItsOwn(() => handle, read(handle), OWN_KEY.sqlite);
        });
      };

      // Prepared in the run: node:sqlite's statements prepared before livecmd opened the
      // database are not watched (docs/mcp.md), and handle-runs holds better-sqlite3's.
      onHandle(
        "a statement prepared on the handle",
        (handle) => async (id) => handle.prepare("SELECT title FROM notes WHERE id = ?").get(id),
      );
      if (driver.name !== "better-sqlite3") return;
      onHandle("Drizzle (drizzle-orm/better-sqlite3)", (handle) => {
        const orm = drizzleSqlite(handle as never);
        return async (id) => orm.select().from(sqliteNotes).where(eq(sqliteNotes.id, id)).all();
      });
      onHandle("Kysely's SqliteDialect, whose connection mutex queues the runs", (handle) => {
        const db = new Kysely<NotesTable>({
          dialect: new SqliteDialect({ database: handle as never }),
        });
        return (id) => db.selectFrom("notes").selectAll().where("id", "=", id).execute();
      });
      onHandle("a Kysely transaction on SQLite", (handle) => {
        const db = new Kysely<NotesTable>({
          dialect: new SqliteDialect({ database: handle as never }),
        });
        return (id) =>
          db
            .transaction()
            .execute((trx) => trx.selectFrom("notes").selectAll().where("id", "=", id).execute());
      });
      test("Prisma 7 through @prisma/adapter-better-sqlite3 (prisma(...))", async () => {
        const adapter = prisma(new PrismaBetterSqlite3({ url: file }));
        const client = new SqlitePrismaClient({ adapter });
        await eachRunToldItsOwn(
          adapter,
          (id) => client.note.findFirst({ where: { id } }),
          OWN_KEY.sqlite,
        );
      });
    },
  );
