import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import {
  CHANGE_LOG_BOUNDS,
  ChangeLog,
} from "../../packages/livecmd/runtime/db/sqlite/changeLog.ts";
import {
  OTHER_WRITERS_POLL_MS,
  SqliteDatabase,
} from "../../packages/livecmd/runtime/db/sqlite/sqliteDatabase.ts";
import { readSchema } from "../../packages/livecmd/runtime/db/sqlite/sqliteSchema.ts";
import { parseLiterals } from "../../packages/livecmd/runtime/db/sqlite/sqlLiterals.ts";
import {
  pragma,
  type OpenOptions,
  SQLITE_DRIVERS,
  type SqliteDriver,
  type TestConnection,
} from "../helpers/sqliteDrivers.ts";

const folder = mkdtempSync(path.join(tmpdir(), "livecmd-log-"));
after(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;

/** A new database file with one table, and a connection to it that knows nothing of livecmd. */
function database(driver: SqliteDriver): { file: string; other: TestConnection } {
  const file = path.join(folder, `${(files += 1)}.sqlite`);
  const other = driver.open(file);
  other.exec("PRAGMA journal_mode = WAL");
  other.exec(
    "CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT COLLATE NOCASE UNIQUE, n INTEGER)",
  );
  other.exec("CREATE TABLE w (id INTEGER PRIMARY KEY)");
  return { file, other };
}

/** Rows `from` to `to` of t in one statement (`run(from, to)`), as a bulk write makes them. */
const BULK_INSERT =
  "WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?) INSERT INTO t (id, email, n) SELECT i, 'e' || i, 1 FROM k";

/** How many turns of the event loop pass before `promise` settles. */
async function turnsUntil(promise: Promise<unknown>): Promise<number> {
  let turns = 0;
  let settled = false;
  const tick = () => {
    turns += 1;
    if (!settled) setImmediate(tick);
  };
  setImmediate(tick);
  await promise.finally(() => (settled = true));
  return turns;
}

/** Each change's table and how many row images it holds (undefined: any row). */
const sizes = (changes: readonly TableChange[]) =>
  changes.map(({ table, rows }) => ({ table, rows: rows?.length }));

const { pageEntries, heldRowImages, entryChars } = CHANGE_LOG_BOUNDS;

/** livecmd's database over `file`, and every change it reports. */
function watched(driver: SqliteDriver, file: string, options?: OpenOptions) {
  const changes: TableChange[] = [];
  const db = new SqliteDatabase(driver.open(file, options), (each) => changes.push(...each));
  return { db, changes };
}

/**
 * `connection`, noting each statement run on it and whether a transaction was open then (from a
 * BEGIN run to a COMMIT or ROLLBACK).
 */
function recording(
  connection: TestConnection,
  recorded: { sql: string; inTransaction: boolean }[],
): TestConnection {
  let inTransaction = false;
  return {
    exec: (sql) => connection.exec(sql),
    close: () => connection.close(),
    prepare(sql) {
      const statement = connection.prepare(sql);
      const noted =
        <Args extends unknown[], R>(run: (...args: Args) => R) =>
        (...args: Args): R => {
          recorded.push({ sql, inTransaction });
          const result = run(...args);
          if (/^BEGIN/.test(sql)) inTransaction = true;
          if (/^(COMMIT|ROLLBACK)$/.test(sql)) inTransaction = false;
          return result;
        };
      return {
        all: noted((...args) => statement.all(...args)),
        get: noted((...args) => statement.get(...args)),
        run: noted((...args) => statement.run(...args)),
      };
    },
  };
}

/** A whole read of `log`, page after page without waiting for a turn. */
function readAll(log: ChangeLog): TableChange[] {
  for (;;) {
    const changes = log.readPage();
    if (changes) return changes;
  }
}

for (const driver of SQLITE_DRIVERS) {
  describe(
    `SQLite change log on ${driver.name}: the rows another connection changed`,
    { skip: driver.skip },
    () => {
      test("an insert, an update and a delete by another connection are told with their keys, old and new", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        other.prepare("INSERT INTO t VALUES (7, 'Ada@Example.com', 1)").run();
        other.prepare("UPDATE t SET id = 8 WHERE id = 7").run();
        other.prepare("DELETE FROM t WHERE id = 8").run();
        await db.caughtUp();
        assert.deepEqual(changes, [
          {
            table: "t",
            rows: [
              { rowid: "n7", "email COLLATE NOCASE": "tada@example.com" },
              { rowid: "n7", "email COLLATE NOCASE": "tada@example.com" },
              { rowid: "n8", "email COLLATE NOCASE": "tada@example.com" },
              { rowid: "n8", "email COLLATE NOCASE": "tada@example.com" },
            ],
          },
        ]);
        await db.close();
      });

      test("on a connection that reads integers as bigints, the app's rows keep them and livecmd's own reads still work", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file, { bigInts: true });
        assert.deepEqual(await db.run("INSERT INTO t VALUES (1, 'a', 1)"), {
          changes: 1,
          lastInsertRowid: 1n,
        });
        other.prepare("UPDATE t SET n = 2 WHERE id = 1").run();
        await db.caughtUp();
        assert.deepEqual(await db.get("SELECT id, n FROM t"), { id: 1n, n: 2n });
        assert.deepEqual(changes, [
          { table: "t", rows: [{ rowid: "n1", "email COLLATE NOCASE": "ta" }] },
          {
            table: "t",
            rows: [
              { rowid: "n1", "email COLLATE NOCASE": "ta" },
              { rowid: "n1", "email COLLATE NOCASE": "ta" },
            ],
          },
        ]);
        await db.close();
      });

      test("a write another connection rolled back is never told", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        other.exec("BEGIN; INSERT INTO t VALUES (1, 'a', 1); ROLLBACK");
        await db.caughtUp();
        assert.deepEqual(changes, []);
        await db.close();
      });

      test("seen within a poll, with nobody asking", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        other.prepare("INSERT INTO t VALUES (1, 'a', 1)").run();
        for (let waited = 0; changes.length === 0 && waited < 2000; waited += 5)
          await new Promise((resolve) => setTimeout(resolve, 5));
        assert.deepEqual(changes, [
          { table: "t", rows: [{ rowid: "n1", "email COLLATE NOCASE": "ta" }] },
        ]);
        await db.close();
      });

      test("entries pruned before they were read: every table counts as changed", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        other.prepare("INSERT INTO t VALUES (1, 'a', 1)").run();
        other.prepare("DELETE FROM livecmd_changes").run();
        await db.caughtUp();
        assert.deepEqual(changes, [{ table: ANY_TABLE }]);
        await db.close();
      });

      test("a table another connection creates gets its triggers; every table counts as changed once", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        other.exec("CREATE TABLE u (id INTEGER PRIMARY KEY); INSERT INTO u VALUES (1)");
        await db.caughtUp();
        assert.deepEqual(changes, [{ table: ANY_TABLE }]);
        other.prepare("INSERT INTO u VALUES (2)").run();
        await db.caughtUp();
        assert.deepEqual(changes.at(-1), { table: "u", rows: [{ rowid: "n2" }] });
        await db.close();
      });

      test("a second process opening the file finds the triggers as they should be and leaves the schema be", async () => {
        const { file, other } = database(driver);
        const first = watched(driver, file);
        const version = pragma(other, "schema_version");
        const second = watched(driver, file);
        assert.equal(pragma(other, "schema_version"), version);
        other.prepare("INSERT INTO t VALUES (1, 'a', 1)").run();
        await first.db.caughtUp();
        await second.db.caughtUp();
        assert.deepEqual(first.changes, second.changes);
        assert.equal(first.changes.length, 1);
        await Promise.all([first.db.close(), second.db.close()]);
      });

      test("read-only, on a file without a log: any write by another connection changes every table", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file, { readOnly: true });
        other.prepare("INSERT INTO t VALUES (1, 'a', 1)").run();
        await db.caughtUp();
        assert.deepEqual(changes, [{ table: ANY_TABLE }]);
        await db.close();
      });
    },
  );

  describe(
    `SQLite change log on ${driver.name}: a bulk write is read a page a turn, within its bounds`,
    { skip: driver.skip },
    () => {
      test("another connection's bulk write: a page a turn, and caughtUp resolves after the last", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        const rows = 25 * pageEntries;
        other.prepare(BULK_INSERT).run(1, rows);
        const turns = await turnsUntil(db.caughtUp());
        assert.ok(turns >= rows / pageEntries - 2, `${rows} entries read in ${turns} turns`);
        assert.deepEqual(changes, [{ table: "t" }]);
        await db.close();
      });

      const BOUNDS: { rule: string; t: number; w: number; changes: object[] }[] = [
        {
          rule: "as many row images as the bound: each row is told",
          t: heldRowImages,
          w: 0,
          changes: [{ table: "t", rows: heldRowImages }],
        },
        {
          rule: "one more: any row of every table the change names, those named pages later too",
          t: heldRowImages + pageEntries + 1,
          w: 1,
          changes: [
            { table: "t", rows: undefined },
            { table: "w", rows: undefined },
          ],
        },
      ];
      for (const { rule, t, w, changes: expected } of BOUNDS)
        test(rule, async () => {
          const { file, other } = database(driver);
          const { db, changes } = watched(driver, file);
          other.exec("BEGIN");
          other.prepare(BULK_INSERT).run(1, t);
          if (w > 0) other.prepare("INSERT INTO w VALUES (1)").run();
          other.exec("COMMIT");
          await db.caughtUp();
          assert.deepEqual(sizes(changes), expected);
          await db.close();
        });

      test("an entry larger than its bound is any row of its table; the others are told row by row", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        other.exec("BEGIN");
        other.prepare("INSERT INTO t VALUES (1, ?, 1)").run("x".repeat(entryChars));
        other.prepare("INSERT INTO w VALUES (1)").run();
        other.exec("COMMIT");
        await db.caughtUp();
        assert.deepEqual(changes, [{ table: "t" }, { table: "w", rows: [{ rowid: "n1" }] }]);
        await db.close();
      });

      for (const where of ["in a transaction", "outside one"] as const)
        test(`the app's own bulk write ${where}: a page a turn, any row once past the bound`, async () => {
          const { file } = database(driver);
          const { db, changes } = watched(driver, file);
          const rows = 2 * heldRowImages;
          const write = () => db.run(BULK_INSERT, 1, rows);
          await (where === "in a transaction" ? db.transaction(write) : write());
          const turns = await turnsUntil(db.caughtUp());
          assert.ok(turns >= rows / pageEntries - 2, `${rows} entries read in ${turns} turns`);
          assert.deepEqual(changes, [{ table: "t" }]);
          await db.close();
        });

      test("a transaction opened between two pages: no log read until it ends, then its own write", async () => {
        const { file, other } = database(driver);
        const recorded: { sql: string; inTransaction: boolean }[] = [];
        const changes: TableChange[] = [];
        const db = new SqliteDatabase(recording(driver.open(file), recorded), (each) =>
          changes.push(...each),
        );
        other.prepare(BULK_INSERT).run(1, 5 * pageEntries);
        const caughtUp = db.caughtUp(); // reads the first page now
        await db.transaction(async () => {
          await db.run("INSERT INTO t VALUES (100000, 'own', 1)");
          // Polls and page turns come and go meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 3 * OTHER_WRITERS_POLL_MS));
        });
        await caughtUp;
        await db.caughtUp();
        const readInTransaction = recorded.filter(
          ({ sql, inTransaction }) =>
            inTransaction && /^\s*SELECT[^]*(livecmd_changes|sqlite_sequence)/.test(sql),
        );
        assert.deepEqual(readInTransaction, []);
        assert.deepEqual(sizes(changes), [
          { table: "t", rows: 5 * pageEntries },
          { table: "t", rows: 1 },
        ]);
        assert.deepEqual(changes[1], {
          table: "t",
          rows: [{ rowid: "n100000", "email COLLATE NOCASE": "town" }],
        });
        await db.close();
      });
    },
  );

  describe(`SQLite change log on ${driver.name}: the gap rule`, { skip: driver.skip }, () => {
    test("entries pruned between two pages of a read: every table counts as changed", async () => {
      const { file, other } = database(driver);
      const { db, changes } = watched(driver, file);
      other.prepare(BULK_INSERT).run(1, 5 * pageEntries);
      const caughtUp = db.caughtUp(); // reads the first page now
      other.prepare("DELETE FROM livecmd_changes WHERE seq = ?").run(3 * pageEntries);
      await caughtUp;
      assert.deepEqual(changes, [{ table: ANY_TABLE }]);
      await db.close();
    });

    test("another writer resets the log's counter: every table once, then row by row again", async () => {
      const { file, other } = database(driver);
      const { db, changes } = watched(driver, file);
      other.prepare(BULK_INSERT).run(1, 3);
      await db.caughtUp();
      other.exec(
        "DELETE FROM livecmd_changes; DELETE FROM sqlite_sequence WHERE name = 'livecmd_changes'",
      );
      other.prepare("INSERT INTO w VALUES (1)").run();
      await db.caughtUp();
      other.prepare("INSERT INTO w VALUES (2)").run();
      await db.caughtUp();
      assert.deepEqual(changes.slice(1), [
        { table: ANY_TABLE },
        { table: "w", rows: [{ rowid: "n2" }] },
      ]);
      await db.close();
    });

    test("an entry numbered past 2^53 by another writer: every table once, then row by row again", async () => {
      const { file, other } = database(driver);
      const { db, changes } = watched(driver, file);
      other
        .prepare(`INSERT INTO livecmd_changes (seq, "table", keys, image) VALUES (?, 'w', ?, '1')`)
        .run(2n ** 62n, "'rowid'");
      await db.caughtUp();
      other.prepare("INSERT INTO w VALUES (2)").run();
      other.prepare("INSERT INTO w VALUES (3)").run();
      await db.caughtUp();
      assert.deepEqual(changes, [
        { table: ANY_TABLE },
        { table: "w", rows: [{ rowid: "n2" }, { rowid: "n3" }] },
      ]);
      await db.close();
    });
  });

  describe(`SQLite change log on ${driver.name}: pruning`, { skip: driver.skip }, () => {
    test("entries older than the retention are deleted, and a reader caught up loses nothing", () => {
      const { other } = database(driver);
      const log = ChangeLog.open(other, readSchema(other), { retentionMs: 0 })!;
      other.prepare("INSERT INTO t VALUES (1, 'a', 1)").run();
      assert.equal(readAll(log).length, 1);
      log.prune();
      assert.equal(
        (other.prepare("SELECT count(*) AS n FROM livecmd_changes").get() as { n: number }).n,
        0,
      );
      other.prepare("INSERT INTO t VALUES (2, 'b', 1)").run();
      assert.deepEqual(readAll(log), [
        { table: "t", rows: [{ rowid: "n2", "email COLLATE NOCASE": "tb" }] },
      ]);
    });

    test("a database another connection is writing is left for later, without waiting for it", () => {
      const { file, other } = database(driver);
      const connection = driver.open(file);
      connection.exec("PRAGMA busy_timeout = 5000");
      const log = ChangeLog.open(connection, readSchema(connection), { retentionMs: 0 })!;
      other.prepare("INSERT INTO t VALUES (1, 'a', 1)").run();
      readAll(log);
      other.exec("BEGIN IMMEDIATE");
      const started = performance.now();
      log.prune();
      assert.ok(performance.now() - started < 1000, "prune waited for the lock");
      other.exec("COMMIT");
      assert.equal(
        (other.prepare("SELECT count(*) AS n FROM livecmd_changes").get() as { n: number }).n,
        1,
      );
      assert.equal(pragma(connection, "busy_timeout"), 5000);
    });
  });
}

describe("SQLite change log: quote()d literals read back as SQLite held them", () => {
  const cases: [name: string, list: string, values: unknown[]][] = [
    ["nothing", "", []],
    ["NULL", "NULL", [null]],
    ["an integer beyond 2^53, exact", "9223372036854775807", [9223372036854775807n]],
    ["a negative integer", "-7", [-7n]],
    ["a real", "0.30000000000000004", [0.30000000000000004]],
    ["a real with an exponent", "1.0e+300", [1e300]],
    ["text with a quote and a comma", "'it''s, here'", ["it's, here"]],
    ["a blob", "X'00FF'", [Buffer.from([0, 255])]],
    ["several", "1,'a',NULL", [1n, "a", null]],
  ];
  for (const [name, list, values] of cases)
    test(name, () => assert.deepEqual(parseLiterals(list), values));

  for (const driver of SQLITE_DRIVERS)
    test(
      `what quote() writes of each storage class reads back equal (${driver.name})`,
      { skip: driver.skip },
      () => {
        const connection = driver.open(":memory:");
        const stored = [7n, -1n, 2.5, 1e-300, "x'y", Buffer.from("hi"), null];
        const list = connection
          .prepare(`SELECT ${stored.map(() => "quote(?)").join(" || ',' || ")} AS list`)
          .get(...stored) as { list: string };
        assert.deepEqual(parseLiterals(list.list), stored);
      },
    );

  test("anything else is refused, with where", () => {
    assert.throws(() => parseLiterals("1;2"), /expected a comma at 1/);
    assert.throws(() => parseLiterals("'open"), /not a quote\(\)d literal at 0/);
  });
});
