import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { command, defineApp } from "../../packages/livecmd/runtime/index.ts";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import {
  CHANGE_LOG_BOUNDS,
  ChangeLog,
} from "../../packages/livecmd/runtime/db/sqlite/changes/changeLog.ts";
import {
  OTHER_WRITERS_POLL_MS,
  SqliteDatabase,
} from "../../packages/livecmd/runtime/db/sqlite/sqliteDatabase.ts";
import { readSchema } from "../../packages/livecmd/runtime/db/sqlite/sqliteSchema.ts";
import { parseLiterals } from "../../packages/livecmd/runtime/db/sqlite/sqlLiterals.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
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
const HOSTILE_INSERT = `INSERT INTO livecmd_changes ("table", keys, image) VALUES (?, ?, ?)`;

/** The rows of t the property watches (and writes): a few, so that writes meet watched rows. */
const WATCHED_IDS = [1, 2, 3];

/** A write another process makes: to the app's tables, or a row of its own into the log. */
type Operation =
  | { kind: "write"; sql: string; params: unknown[] }
  | { kind: "hostile"; row: [table: unknown, keys: unknown, image: unknown] }
  | { kind: "gap" };

const id = fc.integer({ min: 1, max: 4 });
/** Anything but what names t's or w's key columns, so that a hostile row never reads as a real one. */
const hostileText = fc
  .oneof(
    fc.string({ maxLength: 12 }),
    fc.string({
      unit: fc.constantFrom("'", ",", "1", "-", ".", "e", "X", "N", "U", "L"),
      maxLength: 24,
    }),
    fc.constantFrom("'", "X'0'", "NULL,", "1e", "'a''", "-", "''", ""),
    fc.integer({ min: 1, max: 3 }).map((n) => `'${"x".repeat(n * 2000)}'`),
    fc.uint8Array({ maxLength: 4 }).map((bytes) => Buffer.from(bytes)),
    fc.integer(),
  )
  .filter((text) => !/rowid|email/.test(String(text)));
const OPERATION: fc.Arbitrary<Operation> = fc.oneof(
  fc
    .tuple(id, fc.constantFrom("a", "b"), fc.integer({ min: 0, max: 2 }))
    .map(([key, email, n]) => ({
      kind: "write" as const,
      sql: "INSERT OR REPLACE INTO t (id, email, n) VALUES (?, ? || ?, ?)",
      params: [key, email, key, n],
    })),
  id.map((key) => ({
    kind: "write" as const,
    sql: "UPDATE t SET n = n + 1 WHERE id = ?",
    params: [key],
  })),
  id.map((key) => ({ kind: "write" as const, sql: "DELETE FROM t WHERE id = ?", params: [key] })),
  id.map((key) => ({
    kind: "write" as const,
    sql: "INSERT OR IGNORE INTO w VALUES (?)",
    params: [key],
  })),
  id.map((key) => ({ kind: "write" as const, sql: "DELETE FROM w WHERE id = ?", params: [key] })),
  fc
    .tuple(
      fc.oneof(
        fc.constantFrom("t", "w"),
        fc.string({ maxLength: 6 }),
        fc.integer(),
        fc.uint8Array({ minLength: 1, maxLength: 3 }).map((bytes) => Buffer.from(bytes)),
      ),
      hostileText,
      hostileText,
    )
    .map((row) => ({ kind: "hostile" as const, row })),
  fc.constant({ kind: "gap" as const }),
);

function apply(connection: TestConnection, operation: Operation): void {
  if (operation.kind === "write") connection.prepare(operation.sql).run(...operation.params);
  else if (operation.kind === "hostile") connection.prepare(HOSTILE_INSERT).run(...operation.row);
  else
    connection
      .prepare(
        `INSERT INTO livecmd_changes (seq, "table", keys, image) SELECT seq + 2, 'w', '', '' FROM sqlite_sequence WHERE name = 'livecmd_changes'`,
      )
      .run();
}

/**
 * What must re-run after `operations`, whatever their results: every reader of a table a bad row
 * names (t's by key, w's whole), and every reader after a gap or a row whose table is not text.
 */
function rerunOwed(operations: readonly Operation[]): Set<string> {
  const owed = new Set<string>();
  const all = [...WATCHED_IDS.map((id) => `t/${id}`), "w"];
  for (const operation of operations) {
    if (operation.kind === "write") continue;
    const table = operation.kind === "gap" ? undefined : operation.row[0];
    const named =
      typeof table === "string"
        ? all.filter((uri) => (table === "w" ? uri === "w" : table === "t" && uri !== "w"))
        : typeof table === "number"
          ? []
          : all;
    for (const uri of named) owed.add(uri);
  }
  return owed;
}

/** livecmd's database over `file`, and every change it reports. */
function watched(driver: SqliteDriver, file: string, options?: OpenOptions) {
  const changes: TableChange[] = [];
  const db = new SqliteDatabase(driver.open(file, options), (each) => changes.push(...each));
  return { db, changes };
}

/** A row of `t` as its image holds it: the rowid, email as its unique index compares it and as stored, n. */
function row(id: number, email: string, n: number) {
  return {
    rowid: `n${id}`,
    "email COLLATE NOCASE": `t${email.toLowerCase()}`,
    email: `t${email}`,
    n: `n${n}`,
  };
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

/** The larger of the log's counter and its last entry's number. */
function logCounter(connection: TestConnection): bigint {
  const { seq } = connection
    .prepare(
      "SELECT CAST(coalesce(max(seq), 0) AS TEXT) AS seq FROM (SELECT seq FROM sqlite_sequence WHERE name = 'livecmd_changes' UNION ALL SELECT max(seq) FROM livecmd_changes)",
    )
    .get() as { seq: string };
  return BigInt(seq);
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
      test("an insert, an update and a delete by another connection are told with their rows' columns, old and new", async () => {
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
              row(7, "Ada@Example.com", 1),
              row(7, "Ada@Example.com", 1),
              row(8, "Ada@Example.com", 1),
              row(8, "Ada@Example.com", 1),
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
          { table: "t", rows: [row(1, "a", 1)] },
          { table: "t", rows: [row(1, "a", 1), row(1, "a", 2)] },
        ]);
        await db.close();
      });

      test("a value over 256 characters is left out of an image (filters on it count every change); a key column's never is", async () => {
        const { file, other } = database(driver);
        const { db, changes } = watched(driver, file);
        const long = "x".repeat(257);
        other.prepare("INSERT INTO t VALUES (1, ?, ?)").run(long, long);
        await db.caughtUp();
        const { n: _left, ...keys } = row(1, long, 0);
        assert.deepEqual(changes, [{ table: "t", rows: [keys] }]);
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
        assert.deepEqual(changes, [{ table: "t", rows: [row(1, "a", 1)] }]);
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
        assert.deepEqual(changes[1], { table: "t", rows: [row(100000, "own", 1)] });
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

  describe(
    `SQLite change log on ${driver.name}: a row no trigger of livecmd's wrote is logged and counts as any row`,
    { skip: driver.skip },
    () => {
      /** w's keys as its triggers list them. */
      const KEYS = "'rowid'";
      const told = (...ids: number[]) => ({
        table: "w",
        rows: ids.map((id) => ({ rowid: `n${id}` })),
      });
      const BAD_ROWS: {
        rule: string;
        row: [table: unknown, keys: unknown, image: unknown];
        changes: TableChange[];
        says?: RegExp;
      }[] = [
        {
          rule: "an image that is not a list of quote()d literals",
          row: ["w", KEYS, "garbage"],
          changes: [{ table: "w" }],
          says: /^livecmd: entry 2 of livecmd_changes \(table "w"\) is not one livecmd's triggers write: not a quote\(\)d literal at 0: garbage; it counts as a change to every row of its table/,
        },
        {
          rule: "keys that are not a list of quote()d literals",
          row: ["w", "rowid", "1"],
          changes: [{ table: "w" }],
          says: /not a quote\(\)d literal at 0: rowid/,
        },
        {
          rule: "more keys than values",
          row: ["w", `${KEYS},'x'`, "1"],
          changes: [{ table: "w" }],
          says: /it names 2 columns and holds 1 values/,
        },
        {
          rule: "an unterminated text literal",
          row: ["w", KEYS, "'abc"],
          changes: [{ table: "w" }],
          says: /not a quote\(\)d literal at 0: 'abc/,
        },
        {
          rule: "keys and image stored as blobs",
          row: ["w", Buffer.from(KEYS), Buffer.from("1")],
          changes: [{ table: "w" }],
          says: /its keys and image are not both text/,
        },
        {
          rule: "a table no trigger of livecmd's writes for: any row of it",
          row: ["nope", KEYS, "1"],
          changes: [told(1, 2), { table: "nope" }],
          says: /\(table "nope"\) .*no table of that name has livecmd's triggers/,
        },
        {
          rule: "an integer for a table, stored as text: a table of that name",
          row: [7n, KEYS, "1"],
          changes: [told(1, 2), { table: "7" }],
          says: /\(table "7"\) .*no table of that name/,
        },
        {
          rule: "a table stored as a blob, which cannot be read: every table",
          row: [Buffer.from("w"), KEYS, "1"],
          changes: [{ table: ANY_TABLE }],
          says: /\(a table that is not text\) .*a change to every row of every table/,
        },
        {
          rule: "a text literal of 8 million characters: too large to load, any row of its table, nothing logged",
          row: ["w", KEYS, `'${"x".repeat(8_000_000)}'`],
          changes: [{ table: "w" }],
        },
        {
          rule: "well-formed literals naming no key column: an image without keys, which every keyed read counts as changed",
          row: ["w", "'nothing'", "1"],
          changes: [{ table: "w", rows: [{ rowid: "n1" }, {}, { rowid: "n2" }] }],
        },
      ];
      for (const { rule, row, changes, says } of BAD_ROWS)
        test(rule, () => {
          const { file, other } = database(driver);
          const lines: string[] = [];
          const connection = driver.open(file);
          const log = ChangeLog.open(connection, readSchema(connection), {
            log: (line) => lines.push(line),
          })!;
          other.prepare("INSERT INTO w VALUES (1)").run();
          other.prepare(HOSTILE_INSERT).run(...row);
          other.prepare("INSERT INTO w VALUES (2)").run();
          assert.deepEqual(readAll(log), changes);
          assert.equal(lines.length, says ? 1 : 0, lines.join("\n"));
          if (says) assert.match(lines[0]!, says);
          connection.close();
        });

      test("a storm of bad rows is one line, not one a row", () => {
        const { file, other } = database(driver);
        const lines: string[] = [];
        const connection = driver.open(file);
        const log = ChangeLog.open(connection, readSchema(connection), {
          log: (line) => lines.push(line),
        })!;
        other
          .prepare(
            `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 5000) INSERT INTO livecmd_changes ("table", keys, image) SELECT 'w', 'garbage ' || i, '' FROM k`,
          )
          .run();
        assert.deepEqual(readAll(log), [{ table: "w" }]);
        assert.equal(lines.length, 1);
        connection.close();
      });

      test("random and hostile rows among real writes: every watcher of a changed row is told, every reader of a table a bad row names re-runs", async () => {
        const { file, other } = database(driver);
        const runs = new Map<string, number>();
        const ran = (key: string) => runs.set(key, (runs.get(key) ?? 0) + 1);
        const tShow = command({ live: true }, async (ctx, id: number) => {
          ran(`t/${id}`);
          return (await ctx.db.get("SELECT id, email, n FROM t WHERE id = ?", id)) ?? null;
        });
        const wAll = command({ live: true }, async (ctx) => {
          ran("w");
          return ctx.db.all("SELECT id FROM w ORDER BY id");
        });
        const app = defineApp({
          name: "hostile",
          commands: { tShow, wAll },
          agent: { grant: [tShow, wAll] },
          database: () => driver.open(file),
        });
        const live = new LiveRegistry(app, { onError: () => {} });
        const told = new Set<string>();
        const watched = [...WATCHED_IDS.map((id) => `t/${id}`), "w"];
        for (const uri of watched)
          await live.add(
            uri === "w" ? "wAll" : "tShow",
            uri === "w" ? [] : [Number(uri.slice(2))],
            {
              uri,
              notify: (sent) => told.add(sent),
            },
          );
        const results = () =>
          new Map(
            watched.map((uri) => [
              uri,
              JSON.stringify(
                uri === "w"
                  ? other.prepare("SELECT id FROM w ORDER BY id").all()
                  : (other
                      .prepare("SELECT id, email, n FROM t WHERE id = ?")
                      .get(Number(uri.slice(2))) ?? null),
              ),
            ]),
          );
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(OPERATION, { minLength: 1, maxLength: 4 }), {
              minLength: 1,
              maxLength: 4,
            }),
            async (batches) => {
              const before = results();
              runs.clear();
              told.clear();
              for (const batch of batches) {
                other.exec("BEGIN");
                for (const operation of batch) apply(other, operation);
                other.exec("COMMIT");
              }
              await live.settled();
              const after = results();
              const changed = watched.filter((uri) => before.get(uri) !== after.get(uri));
              assert.deepEqual(
                [...told].sort(),
                changed.sort(),
                "told exactly the watchers whose result changed",
              );
              for (const uri of rerunOwed(batches.flat()))
                assert.ok(runs.has(uri), `${uri} re-ran after a bad row or a gap`);
            },
          ),
          { numRuns: 60, seed: 31, interruptAfterTimeLimit: 60_000 },
        );
        live.close();
        await app.close();
      });
    },
  );

  describe(
    `SQLite change log on ${driver.name}: a counter at SQLite's largest integer`,
    { skip: driver.skip },
    () => {
      const LARGEST = "9223372036854775807";
      for (const [how, sql] of [
        [
          "the counter set to it",
          `UPDATE sqlite_sequence SET seq = ${LARGEST} WHERE name = 'livecmd_changes'`,
        ],
        [
          "an entry renumbered to it",
          `UPDATE livecmd_changes SET seq = ${LARGEST} WHERE seq = (SELECT max(seq) FROM livecmd_changes)`,
        ],
        [
          "an entry written at it",
          `INSERT INTO livecmd_changes (seq, "table", keys, image) VALUES (${LARGEST}, 'w', '''rowid''', '1')`,
        ],
      ] as const)
        test(`${how}: no write fails, every table counts as changed, then the numbering restarts and the log goes on row by row`, async () => {
          const { file, other } = database(driver);
          const { db, changes } = watched(driver, file);
          other.prepare("INSERT INTO w VALUES (1)").run();
          await db.caughtUp();
          other.exec(sql);
          const before = changes.length;
          // Another connection's writes (as with no livecmd running), of one row and of several, and livecmd's own.
          other.prepare("INSERT INTO w VALUES (2)").run();
          other.prepare(BULK_INSERT).run(1, 3);
          other.prepare("UPDATE t SET n = 2").run();
          await db.run("INSERT INTO w VALUES (3)");
          await db.caughtUp();
          assert.ok(
            changes.slice(before).some(({ table }) => table === ANY_TABLE),
            JSON.stringify(changes.slice(before)),
          );
          for (let waited = 0; logCounter(other) > 2n ** 32n && waited < 2000; waited += 5)
            await new Promise((resolve) => setTimeout(resolve, 5));
          assert.ok(logCounter(other) < 2n ** 32n, `the numbering restarted: ${logCounter(other)}`);
          await db.caughtUp();
          changes.length = 0;
          other.prepare("INSERT INTO w VALUES (4)").run();
          await db.caughtUp();
          assert.deepEqual(changes, [{ table: "w", rows: [{ rowid: "n4" }] }]);
          await db.close();
        });
    },
  );

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
      assert.deepEqual(readAll(log), [{ table: "t", rows: [row(2, "b", 1)] }]);
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

  const LONG = 8_000_000;
  test("text of 8 million characters, doubled quotes and all: read in one scan", () => {
    const text = `${"it''s ".repeat(1000)}${"x".repeat(LONG)}''`;
    assert.deepEqual(parseLiterals(`1,'${text}',NULL`), [1n, text.replaceAll("''", "'"), null]);
  });

  const REFUSED: [list: string, error: RegExp][] = [
    ["1;2", /^Error: expected a comma at 1: 1;2$/],
    ["'open", /^Error: not a quote\(\)d literal at 0: 'open$/],
    ["1,", /^Error: not a quote\(\)d literal at 2/],
    [",1", /^Error: not a quote\(\)d literal at 0/],
    ["X'ABC'", /^Error: not a quote\(\)d literal at 0/],
    ["X'ab'", /^Error: not a quote\(\)d literal at 0/],
    ["NUL", /^Error: not a quote\(\)d literal at 0/],
    ["-", /^Error: not a quote\(\)d literal at 0/],
    ["1.", /^Error: not a quote\(\)d literal at 0/],
    ["1e+", /^Error: not a quote\(\)d literal at 0/],
    ["1,'a''", /^Error: not a quote\(\)d literal at 2/],
    [
      `'${"x".repeat(LONG)}`,
      /^Error: not a quote\(\)d literal at 0: '(x){99}… \(8000001 characters\)$/,
    ],
  ];
  for (const [list, error] of REFUSED)
    test(`refused, saying where and at most 100 characters of it: ${list.slice(0, 12)}`, () =>
      assert.throws(() => parseLiterals(list), error));

  test("any text is read or refused with an Error, never a thrown stack overflow (random text)", () => {
    const unit = fc.constantFrom(
      "'",
      ",",
      "X",
      "N",
      "U",
      "L",
      "1",
      "-",
      ".",
      "e",
      "+",
      "A",
      "0",
      " ",
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (list) => {
        try {
          parseLiterals(list);
        } catch (error) {
          assert.match(
            (error as Error).message,
            /^(not a quote\(\)d literal|expected a comma) at \d+: /,
          );
        }
      }),
      { numRuns: 2000, seed: 31 },
    );
  });
});
