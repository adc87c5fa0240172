import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type Database from "better-sqlite3";
import { between, count, eq, inArray, like } from "drizzle-orm";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import fc from "fast-check";
import { Kysely, SqliteDialect, type ControlledTransaction, type Generated } from "kysely";
import { defineApp, type App } from "../../packages/livecmd/runtime/index.ts";
import {
  readerCommand,
  watch,
  writeAndCompare,
  writeBatches,
  writeThroughApp,
  type Oracle,
  type Statement,
  type WriteBatch,
} from "../helpers/differentialLive.ts";
import { SQLITE_DRIVERS, type TestConnection } from "../helpers/sqliteDrivers.ts";

const SCHEMA = /* sql */ `
  CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, code TEXT UNIQUE);
  CREATE INDEX parent_by_name ON parent (name);
  CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE, tag TEXT);
  CREATE INDEX child_by_parent ON child (parent_id);
  INSERT INTO parent VALUES (1, 'a', 'x1'), (2, 'B', 'x2'), (3, 'c', 'x3');
  INSERT INTO child (parent_id, tag) VALUES (1, 't'), (2, 't'), (3, 'u');
`;

const parent = sqliteTable("parent", {
  id: integer("id").primaryKey(),
  name: text("name"),
  code: text("code"),
});
const child = sqliteTable("child", {
  id: integer("id").primaryKey(),
  parentId: integer("parent_id"),
  tag: text("tag"),
});
interface Tables {
  parent: { id: number; name: string | null; code: string | null };
  child: { id: Generated<number>; parent_id: number | null; tag: string | null };
}

type Orm = BetterSQLite3Database;
type Values = never;

/**
 * Reads of the shapes the matcher meets, each written three ways: the SQL the oracle runs (and
 * the app runs on its own handle), Drizzle's builder and Kysely's. Each way reads the same rows.
 */
const READS: readonly {
  sql: string;
  arity: number;
  drizzle: (orm: Orm, a: Values, b: Values) => unknown;
  kysely: (db: Kysely<Tables>, a: Values, b: Values) => unknown;
}[] = [
  {
    sql: "SELECT * FROM parent WHERE id = ?",
    arity: 1,
    drizzle: (orm, a) => orm.select().from(parent).where(eq(parent.id, a)).all(),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("id", "=", a).execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE code = ?",
    arity: 1,
    drizzle: (orm, a) => orm.select().from(parent).where(eq(parent.code, a)).all(),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("code", "=", a).execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE name = ?",
    arity: 1,
    drizzle: (orm, a) => orm.select().from(parent).where(eq(parent.name, a)).all(),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("name", "=", a).execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE id IN (?, ?)",
    arity: 2,
    drizzle: (orm, a, b) =>
      orm
        .select()
        .from(parent)
        .where(inArray(parent.id, [a, b]))
        .all(),
    kysely: (db, a, b) => db.selectFrom("parent").selectAll().where("id", "in", [a, b]).execute(),
  },
  {
    sql: "SELECT * FROM child WHERE parent_id = ? ORDER BY id",
    arity: 1,
    drizzle: (orm, a) =>
      orm.select().from(child).where(eq(child.parentId, a)).orderBy(child.id).all(),
    kysely: (db, a) =>
      db.selectFrom("child").selectAll().where("parent_id", "=", a).orderBy("id").execute(),
  },
  {
    sql: "SELECT p.id, COUNT(c.id) AS n FROM parent p LEFT JOIN child c ON c.parent_id = p.id WHERE p.id = ? GROUP BY p.id",
    arity: 1,
    drizzle: (orm, a) =>
      orm
        .select({ id: parent.id, n: count(child.id) })
        .from(parent)
        .leftJoin(child, eq(child.parentId, parent.id))
        .where(eq(parent.id, a))
        .groupBy(parent.id)
        .all(),
    kysely: (db, a) =>
      db
        .selectFrom("parent as p")
        .leftJoin("child as c", "c.parent_id", "p.id")
        .select((eb) => ["p.id", eb.fn.count("c.id").as("n")])
        .where("p.id", "=", a)
        .groupBy("p.id")
        .execute(),
  },
  {
    sql: "SELECT count(*) AS n FROM parent",
    arity: 0,
    drizzle: (orm) => orm.select({ n: count() }).from(parent).all(),
    kysely: (db) =>
      db
        .selectFrom("parent")
        .select((eb) => eb.fn.countAll().as("n"))
        .execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE name LIKE ?",
    arity: 1,
    drizzle: (orm, a) => orm.select().from(parent).where(like(parent.name, a)).all(),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("name", "like", a).execute(),
  },
  {
    sql: "SELECT * FROM child WHERE parent_id BETWEEN ? AND ?",
    arity: 2,
    drizzle: (orm, a, b) =>
      orm
        .select()
        .from(child)
        .where(between(child.parentId, a, b))
        .all(),
    kysely: (db, a, b) =>
      db
        .selectFrom("child")
        .selectAll()
        .where((eb) => eb.between("parent_id", a, b))
        .execute(),
  },
];

/** Writes of every kind the change log sees, three ways like the reads (`sql` also through ctx.db). */
const WRITES: readonly {
  sql: string;
  arity: number;
  drizzle: (orm: Orm, a: Values, b: Values, c: Values) => unknown;
  kysely: (db: Kysely<Tables>, a: Values, b: Values, c: Values) => Promise<unknown>;
}[] = [
  {
    sql: "INSERT INTO parent (id, name, code) VALUES (?, ?, ?)",
    arity: 3,
    drizzle: (orm, id, name, code) => orm.insert(parent).values({ id, name, code }).run(),
    kysely: (db, id, name, code) => db.insertInto("parent").values({ id, name, code }).execute(),
  },
  {
    sql: "UPDATE parent SET name = ? WHERE id = ?",
    arity: 2,
    drizzle: (orm, name, id) => orm.update(parent).set({ name }).where(eq(parent.id, id)).run(),
    kysely: (db, name, id) => db.updateTable("parent").set({ name }).where("id", "=", id).execute(),
  },
  {
    sql: "UPDATE parent SET id = ? WHERE id = ?",
    arity: 2,
    drizzle: (orm, to, id) => orm.update(parent).set({ id: to }).where(eq(parent.id, id)).run(),
    kysely: (db, to, id) => db.updateTable("parent").set({ id: to }).where("id", "=", id).execute(),
  },
  {
    sql: "DELETE FROM parent WHERE id = ?",
    arity: 1,
    drizzle: (orm, id) => orm.delete(parent).where(eq(parent.id, id)).run(),
    kysely: (db, id) => db.deleteFrom("parent").where("id", "=", id).execute(),
  },
  {
    sql: "INSERT INTO child (parent_id, tag) VALUES (?, ?)",
    arity: 2,
    drizzle: (orm, parentId, tag) => orm.insert(child).values({ parentId, tag }).run(),
    kysely: (db, parent_id, tag) => db.insertInto("child").values({ parent_id, tag }).execute(),
  },
  {
    sql: "UPDATE child SET parent_id = ? WHERE id = ?",
    arity: 2,
    drizzle: (orm, parentId, id) =>
      orm.update(child).set({ parentId }).where(eq(child.id, id)).run(),
    kysely: (db, parent_id, id) =>
      db.updateTable("child").set({ parent_id }).where("id", "=", id).execute(),
  },
  {
    sql: "DELETE FROM child WHERE id = ?",
    arity: 1,
    drizzle: (orm, id) => orm.delete(child).where(eq(child.id, id)).run(),
    kysely: (db, id) => db.deleteFrom("child").where("id", "=", id).execute(),
  },
];

const SQLS = WRITES.map(({ sql }) => [sql] as const);

/** Values SQLite may or may not hold equal to a key: 3, '3', 'a', 'A', NULL. */
const value = fc.oneof(
  fc.constantFrom(1, 2, 3, 4),
  fc.constantFrom("3", "a", "A", "b", "c%"),
  fc.constant(null),
);
const statement = (table: readonly { arity: number }[]) =>
  fc
    .integer({ min: 0, max: table.length - 1 })
    .chain((i) =>
      fc.tuple(
        fc.constant(i),
        fc.array(value, { minLength: table[i]!.arity, maxLength: table[i]!.arity }),
      ),
    );

/** A batch of writes, by another connection (`elsewhere`), through `ctx.db`, or through the library. */
type StackBatch = WriteBatch & { throughLibrary: boolean };
const batches = fc
  .tuple(writeBatches(statement(WRITES), { elsewhere: true }), fc.boolean())
  .map(([batch, throughLibrary]): StackBatch => ({ ...batch, throughLibrary }));

/** One way of reading and writing through the app's own handle. */
interface Stack {
  readonly name: string;
  readers(handle: TestConnection): ((...params: never[]) => unknown)[];
  write(handle: TestConnection, batch: WriteBatch): Promise<void> | void;
}

/** The app's SQL through its own handle: a statement each, in better-sqlite3-style transactions. */
function rawStack(name: string): Stack {
  return {
    name,
    readers: (handle) =>
      READS.map(
        ({ sql }) =>
          (...params: never[]) =>
            handle.prepare(sql).all(...params),
      ),
    write(handle, { statements, rollback }) {
      handle.exec("BEGIN");
      for (const [i, params] of statements) {
        handle.exec("SAVEPOINT one");
        try {
          handle.prepare(WRITES[i]!.sql).run(...params);
        } catch {
          handle.exec("ROLLBACK TO one");
        }
        handle.exec("RELEASE one");
      }
      handle.exec(rollback ? "ROLLBACK" : "COMMIT");
    },
  };
}

/** Drizzle on better-sqlite3: its transactions are better-sqlite3's (synchronous), savepoints nested. */
const drizzleStack: Stack = {
  name: "Drizzle",
  readers(handle) {
    const orm = drizzle(handle as unknown as Database.Database);
    return READS.map(
      (read) =>
        (...params: never[]) =>
          read.drizzle(orm, params[0]!, params[1]!),
    );
  },
  write(handle, { statements, rollback }) {
    const orm = drizzle(handle as unknown as Database.Database);
    try {
      orm.transaction((tx) => {
        for (const [i, params] of statements)
          try {
            tx.transaction((savepoint) =>
              WRITES[i]!.drizzle(savepoint as unknown as Orm, ...(params as [never, never, never])),
            );
          } catch {
            // Rolled back to its savepoint, as an app that catches it would.
          }
        if (rollback) tx.rollback();
      });
    } catch {
      // The batch rolled back.
    }
  },
};

/** Kysely's SqliteDialect: asynchronous, controlled transactions with savepoints. */
const kyselyStack: Stack = {
  name: "Kysely",
  readers(handle) {
    const db = kyselyOn(handle);
    return READS.map(
      (read) =>
        (...params: never[]) =>
          read.kysely(db, params[0]!, params[1]!),
    );
  },
  async write(handle, { statements, rollback }) {
    const trx: ControlledTransaction<Tables> = await kyselyOn(handle).startTransaction().execute();
    for (const [i, params] of statements) {
      const savepoint = await trx.savepoint("one").execute();
      try {
        await WRITES[i]!.kysely(savepoint, ...(params as [never, never, never]));
        await savepoint.releaseSavepoint("one").execute();
      } catch {
        await savepoint.rollbackToSavepoint("one").execute();
      }
    }
    await (rollback ? trx.rollback() : trx.commit()).execute();
  },
};

const kyselies = new WeakMap<object, Kysely<Tables>>();
function kyselyOn(handle: TestConnection): Kysely<Tables> {
  let db = kyselies.get(handle);
  if (!db) {
    db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: handle as unknown as Database.Database }),
    });
    kyselies.set(handle, db);
  }
  return db;
}

/** Another connection to the app's file: each watched read's result, and writes as another process's. */
function otherConnection(connection: TestConnection, reads: readonly Statement[]): Oracle {
  return {
    results: () =>
      reads.map(([i, params]) => JSON.stringify(connection.prepare(READS[i]!.sql).all(...params))),
    writeElsewhere: (batch) => rawStack("elsewhere").write(connection, batch),
  };
}

function connect(open: (file: string) => TestConnection, file: string): TestConnection {
  const connection = open(file);
  connection.exec("PRAGMA foreign_keys = ON");
  connection.exec("PRAGMA synchronous = OFF");
  if (!connection.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'parent'").get())
    connection.exec(SCHEMA);
  return connection;
}

/** An app whose live `query` reads through `stack` on the very handle it gives livecmd. */
function stackApp(stack: Stack, handle: TestConnection): App {
  const query = readerCommand(stack.readers(handle));
  return defineApp({
    name: "rows",
    commands: { query },
    agent: { grant: [query] },
    database: () => handle,
  });
}

const betterSqlite3 = SQLITE_DRIVERS.find(({ name }) => name === "better-sqlite3")!;
const nodeSqlite = SQLITE_DRIVERS.find(({ name }) => name === "node:sqlite")!;
const CASES = [
  { driver: betterSqlite3, stack: rawStack("the app's SQL") },
  { driver: betterSqlite3, stack: drizzleStack },
  { driver: betterSqlite3, stack: kyselyStack },
  { driver: nodeSqlite, stack: rawStack("the app's SQL") },
];

for (const { driver, stack } of CASES)
  describe(`live rows through ${stack.name} on ${driver.name}`, { skip: driver.skip }, () => {
    test("row-level matching notifies what table-level matching does, and exactly the reads whose results a write changed, whether written through the library, ctx.db or another connection (random reads and writes)", async () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-stack-rows-"));
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(statement(READS), { minLength: 1, maxLength: 8 }),
          fc.array(batches, { minLength: 1, maxLength: 6 }),
          async (reads, writes) => {
            const file = path.join(folder, `${(run += 1)}.sqlite`);
            const other = connect((name) => driver.open(name), file);
            const handle = connect((name) => driver.open(name), file);
            const app = stackApp(stack, handle);
            const rows = await watch(app, "rows", reads);
            const tables = await watch(app, "tables", reads);
            // Every read was seen, statement by statement: none is re-run on every write for want of it.
            assert.deepEqual(rows.live.unseen(), []);
            await writeAndCompare(
              app,
              SQLS,
              writes,
              rows,
              tables,
              otherConnection(other, reads),
              (batch) =>
                batch.throughLibrary
                  ? stack.write(handle, batch)
                  : writeThroughApp(app, SQLS, batch),
            );
            await app.close();
            other.close();
          },
        ),
        { numRuns: 60, seed: 32, interruptAfterTimeLimit: 40_000 },
      );
      rmSync(folder, { recursive: true, force: true });
    });

    test("a write through the library to a row nobody watches re-runs nothing; to a watched row, only its readers", async () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-stack-rows-"));
      const handle = connect((name) => driver.open(name), path.join(folder, "one.sqlite"));
      const app = stackApp(stack, handle);
      const { live, received } = await watch(app, "rows", [
        [0, [1]],
        [0, [2]],
        [4, [2]],
      ]);
      const write = (i: number, ...params: unknown[]) =>
        stack.write(handle, { statements: [[i, params]], rollback: false });
      await write(1, "z", 3);
      await live.settled();
      assert.equal(live.stats().reruns, 0);
      await write(3, 2); // cascades to child 2
      await live.settled();
      assert.deepEqual(
        { reruns: live.stats().reruns, received: received.sort() },
        { reruns: 2, received: ["q://0/[2]", "q://4/[2]"] },
      );
      await write(1, "y", 1);
      await stack.write(handle, { statements: [[1, ["w", 1]]], rollback: true });
      await live.settled();
      assert.deepEqual(received.sort(), ["q://0/[1]", "q://0/[2]", "q://4/[2]"]);
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    });
  });
