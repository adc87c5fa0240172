import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { eq, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import pg from "pg";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import {
  command,
  defineApp,
  postgres,
  prisma,
  type App,
  type DatabaseSource,
} from "../../packages/livecmd/runtime/index.ts";
import { PrismaClient } from "../../examples/prisma/client/client.ts";
import type { KeyValue } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { readKeys, runObserved } from "../helpers/observedRuns.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { SQLITE_DRIVERS, type SqliteDriver } from "../helpers/sqliteDrivers.ts";
import { StderrLines } from "../reliability/support/watchers.ts";

const notes = sqliteTable("notes", { id: integer("id").primaryKey(), title: text("title") });

const betterSqlite3 = SQLITE_DRIVERS.find(({ name }) => name === "better-sqlite3")!;

describe(
  "statements through the app's own SQLite handle belong to the run that executes them",
  {
    skip: betterSqlite3.skip,
  },
  () => {
    const sqlite = new Database(":memory:");
    sqlite.exec(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO notes VALUES (1, 'a'), (2, 'b')",
    );
    const orm = drizzle(sqlite);
    // Prepared before livecmd opened the database, run by every run of `show`.
    const byId = orm
      .select()
      .from(notes)
      .where(eq(notes.id, sql.placeholder("id")))
      .prepare();
    const show = command({ live: true }, async (_ctx, id: number) => byId.get({ id }));
    const many = command({}, async () => {
      for (let id = 1; ; id++) orm.select().from(notes).where(eq(notes.id, id)).get();
    });
    const app = defineApp({
      name: "n",
      commands: { show, many },
      agent: { grant: [show] },
      database: () => sqlite,
    });
    after(() => app.close());

    test("a query prepared once reports to each run that executes it, with its own key", async () => {
      const first = runObserved(app, "show", [1]);
      const second = runObserved(app, "show", [2]);
      await Promise.all([first.running, second.running]);
      assert.deepEqual(readKeys(app, first.reads), ["notes.rowid = 1"]);
      assert.deepEqual(readKeys(app, second.reads), ["notes.rowid = 2"]);
    });

    test("once ctx.signal fired, no statement through the handle starts: the run rejects with an AbortError", async () => {
      const controller = new AbortController();
      controller.abort("the client went away");
      const { running } = runObserved(app, "many", [], controller.signal);
      await assert.rejects(running, { name: "AbortError" });
    });
  },
);

describe(
  "the change log, read a page a turn, meets a transaction the app began through its handle",
  { skip: betterSqlite3.skip },
  () => {
    const folder = mkdtempSync(path.join(tmpdir(), "livecmd-handle-pages-"));
    const file = path.join(folder, "notes.sqlite");
    const sqlite = new Database(file);
    sqlite.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)");
    const app = defineApp({
      name: "n",
      commands: {},
      agent: { grant: [] },
      database: () => sqlite,
    });
    after(async () => {
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    });

    test("no page is read inside it: its rolled-back row is never reported, and every row another connection wrote is, after it", async () => {
      await app.ready();
      const other = new Database(file);
      const insert = other.prepare("INSERT INTO notes VALUES (?, 'bulk')");
      other.transaction(() => {
        for (let id = 1; id <= 2_500; id++) insert.run(id);
      })();
      other.close();
      const reported = new Set<KeyValue | null | undefined>();
      engineOf(app).onChange((changes) => {
        for (const { rows } of changes) {
          assert.ok(rows, "each change carries its rows");
          for (const row of rows) reported.add(row.rowid);
        }
      });
      const caughtUp = engineOf(app).changesCaughtUp(); // reads the first of three pages now
      sqlite.prepare("BEGIN").run();
      sqlite.prepare("INSERT INTO notes VALUES (10001, 'own')").run();
      await sleep(100); // page turns and polls come and go
      assert.equal(reported.size, 0, "no page is read inside it");
      sqlite.prepare("ROLLBACK").run();
      await caughtUp;
      await engineOf(app).changesCaughtUp();
      assert.equal(reported.size, 2_500);
      assert.ok(!reported.has("n10001"), "a rolled-back row is not reported");
    });
  },
);

/** How a command begins a transaction on the app's own SQLite handle and writes in it. */
interface LeftOpen {
  readonly name: string;
  /** The library the app's handle is of, which opens the file's other connections here too. */
  readonly driver: SqliteDriver;
  /** The database livecmd is given for `file`, and `write`, which begins and writes through it. */
  open(file: string): { database: DatabaseSource; write: () => Promise<void> | void };
}

const nodeSqlite = SQLITE_DRIVERS.find(({ name }) => name === "node:sqlite")!;

const LEFT_OPEN: readonly LeftOpen[] = [
  {
    name: "better-sqlite3, BEGIN through prepare",
    driver: betterSqlite3,
    open(file) {
      const handle = new Database(file);
      return {
        database: () => handle,
        write: () => {
          handle.prepare("BEGIN").run();
          handle.prepare("INSERT INTO notes (title) VALUES ('left open')").run();
        },
      };
    },
  },
  {
    name: "node:sqlite, BEGIN through exec",
    driver: nodeSqlite,
    open(file) {
      const handle = nodeSqlite.open(file);
      return {
        database: () => handle,
        write: () => {
          handle.exec("BEGIN");
          handle.prepare("INSERT INTO notes (title) VALUES ('left open')").run();
        },
      };
    },
  },
  {
    name: "Prisma 7 through @prisma/adapter-better-sqlite3, BEGIN as raw SQL",
    driver: betterSqlite3,
    open(file) {
      const adapter = prisma(new PrismaBetterSqlite3({ url: file }));
      const client = new PrismaClient({ adapter });
      return {
        database: adapter,
        write: async () => {
          await client.$executeRawUnsafe("BEGIN");
          await client.$executeRawUnsafe("INSERT INTO notes (title) VALUES ('left open')");
        },
      };
    },
  },
];

/** How long another run's statement may take once the run that left a transaction open ended. */
const GOES_ON_WITHIN_MS = 1_000;

for (const handle of LEFT_OPEN)
  describe(
    `a run that ends with a transaction open on the app's own handle has it rolled back (${handle.name})`,
    { skip: handle.driver.skip },
    () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-left-open-"));
      const file = path.join(folder, "notes.sqlite");
      const setup = handle.driver.open(file);
      setup.exec(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL DEFAULT 1, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '')",
      );
      setup.close();
      const { database, write } = handle.open(file);
      const leave = command({}, async (_ctx, fails: boolean) => {
        await write();
        if (fails) throw new Error("the command failed after writing");
      });
      // Prisma's adapter reads integers as bigints.
      const count = command({}, async (ctx) =>
        Number((await ctx.db.get<{ n: number | bigint }>("SELECT count(*) AS n FROM notes"))!.n),
      );
      const app = defineApp({
        name: "n",
        commands: { leave, count },
        agent: { grant: [leave, count] },
        database,
      });
      const stderr = new StderrLines();
      before(() => stderr.start());
      after(async () => {
        stderr.stop();
        await app.close();
        rmSync(folder, { recursive: true, force: true });
      });

      for (const [ending, fails] of [
        ["throws", true],
        ["returns", false],
      ] as const)
        test(`when the command ${ending}, what it wrote is undone, and other runs and connections go on`, async () => {
          const left = runObserved(app, "leave", [fails]).running;
          await (fails ? assert.rejects(left, /failed after writing/) : left);
          const counted = runObserved(app, "count", []).running;
          const stalled = sleep(GOES_ON_WITHIN_MS).then(() => "stalled");
          assert.equal(await Promise.race([counted, stalled]), 0);
          const other = handle.driver.open(file);
          try {
            other.exec("PRAGMA busy_timeout = 0");
            other.prepare("INSERT INTO notes (title) VALUES ('another connection')").run();
            other.prepare("DELETE FROM notes").run();
          } finally {
            other.close();
          }
        });

      test("the log names the command and what to do, once for the command however often it does so", () => {
        const lines = stderr.take().filter((line) => line.includes("transaction open"));
        assert.equal(lines.length, 1, lines.join("\n"));
        assert.match(lines[0]!, /^livecmd: leave ended with a transaction open on the /);
        assert.match(lines[0]!, /livecmd rolled it back/);
        assert.match(lines[0]!, /ctx\.db\.transaction\(fn\)/);
      });
    },
  );

const server = postgresServer();

describe(
  "statements through the app's own pg.Pool are cancelled with their run",
  { skip: server.skip },
  () => {
    let pool: pg.Pool;
    let app: App;
    before(async () => {
      const url = await emptyDatabase(server.url!);
      psql(url, "CREATE TABLE notes (id integer PRIMARY KEY, title text)");
      pool = new pg.Pool({ connectionString: url });
      const slow = command({}, async () => pool.query("SELECT pg_sleep(30), count(*) FROM notes"));
      app = defineApp({
        name: "n",
        commands: { slow },
        agent: { grant: [slow] },
        database: postgres(pool),
      });
      await app.ready();
    });
    after(async () => {
      await app.close();
      await pool.end();
    });

    test("the running statement is cancelled when ctx.signal fires, and the pool serves on", async () => {
      const controller = new AbortController();
      const { running, reads } = runObserved(app, "slow", [], controller.signal);
      while (reads.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort("the client went away");
      await assert.rejects(running, /canceling statement due to user request/);
      assert.deepEqual((await pool.query("SELECT 1 AS one")).rows, [{ one: 1 }]);
    });
  },
);
