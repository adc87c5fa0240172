import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type {
  RowImage,
  TableChange,
  TableRead,
} from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import type { Decision } from "../../packages/livecmd/runtime/db/rowFilter.ts";
import { SqliteDatabase } from "../../packages/livecmd/runtime/db/sqlite/sqliteDatabase.ts";
import { SQLITE_DRIVERS, type SqliteDriver } from "../helpers/sqliteDrivers.ts";

/**
 * SQLite itself is the oracle of the filters livecmd reads off its programs: for a row stored in
 * a column of each affinity and collation, indexed or not, and a condition of each form with a
 * bound value, the filter a read of `WHERE <condition>` reports keeps the row's image whenever
 * SQLite returns the row, and, where every test it made could be told, exactly then.
 */
const COLUMNS = [
  "INTEGER",
  "REAL",
  "NUMERIC",
  "TEXT",
  "BLOB",
  "TEXT COLLATE NOCASE",
  "TEXT COLLATE RTRIM",
] as const;

const CONDITIONS = [
  "c = ?",
  "c <> ?",
  "c < ?",
  "c <= ?",
  "c > ?",
  "c >= ?",
  "c IS ?",
  "c IS NOT ?",
  "c BETWEEN ? AND 'm'",
  "c IN (?, 'abc', 7)",
  "c NOT IN (?, 'x')",
  "c LIKE ?",
  "c NOT LIKE ?",
  "c IS NULL",
  "c > ? OR c = 'abc'",
  "NOT (c >= ?)",
] as const;

/** Values of every storage class, and text that reads as a number or differs only by case or trailing spaces. */
const VALUES: readonly unknown[] = [
  null,
  -1n,
  0n,
  7n,
  2n ** 53n + 1n,
  1.5,
  7,
  -0.5,
  "7",
  " 7",
  "7.0",
  "abc",
  "ABC",
  "abc  ",
  "",
  "1e3",
  "a%",
  "_b%",
  Buffer.from("ab"),
];

const value = fc.constantFrom(...VALUES);

function tableName(column: number, indexed: boolean): string {
  return `t${column}${indexed ? "i" : ""}`;
}

function open(driver: SqliteDriver) {
  const connection = driver.open(":memory:");
  COLUMNS.forEach((type, i) =>
    connection.exec(
      `CREATE TABLE ${tableName(i, false)} (id INTEGER PRIMARY KEY, c ${type});
       CREATE TABLE ${tableName(i, true)} (id INTEGER PRIMARY KEY, c ${type});
       CREATE INDEX ${tableName(i, true)}_c ON ${tableName(i, true)} (c);`,
    ),
  );
  const changes: TableChange[] = [];
  const db = new SqliteDatabase(connection, (each) => changes.push(...each));
  return { connection, db, changes };
}

/** Whether `decision` keeps `image`, and whether every test it took could be told. */
function decide(decision: Decision, image: RowImage): { keeps: boolean; sure: boolean } {
  let node = decision;
  while (typeof node !== "boolean") {
    const outcome = node.atom.test(image);
    if (outcome === undefined) return { keeps: true, sure: false };
    node = outcome ? node.ifTrue : node.ifFalse;
  }
  return { keeps: node, sure: true };
}

for (const driver of SQLITE_DRIVERS)
  describe(`SQLite filters on ${driver.name}`, { skip: driver.skip }, () => {
    test("a filter keeps a row's image exactly when SQLite returns the row, where it can tell, and whenever it does (every affinity, collation, condition; scans and index ranges)", async () => {
      const { connection, db, changes } = open(driver);
      let told = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: COLUMNS.length - 1 }),
          fc.boolean(),
          fc.constantFrom(...CONDITIONS),
          value,
          value,
          async (column, indexed, condition, stored, bound) => {
            const table = tableName(column, indexed);
            connection.prepare(`DELETE FROM ${table}`).run();
            changes.length = 0;
            await db.run(`INSERT INTO ${table} (id, c) VALUES (1, ?)`, stored as never);
            const image = changes.at(-1)!.rows!.at(-1)!;
            const sql = `SELECT id FROM ${table} WHERE ${condition}`;
            const params = sql.includes("?") ? [bound] : [];
            const reads: TableRead[] = [];
            const rows = await db
              .observedBy({ read: (each) => reads.push(...each) })
              .all(sql, ...(params as never[]));
            const returned = rows.length === 1;
            const read = reads.find((each) => each.table === table);
            assert.ok(read, `${sql} reported no read of ${table}`);
            if (read.column !== undefined) {
              const key = image[read.column];
              assert.ok(
                !returned || key === undefined || (key !== null && read.values.includes(key)),
                `${sql} with ${String(bound)}: keyed read misses ${JSON.stringify(image)}`,
              );
              return;
            }
            if (!read.filter) return; // whole: every row counts
            const { keeps, sure } = decide(read.filter.decision, image);
            assert.equal(
              read.filter.admits(image) || !returned,
              true,
              `${sql} with ${String(bound)} returned the row, whose image ${JSON.stringify(image)} the filter ${read.filter.text} drops`,
            );
            if (sure) {
              told += 1;
              assert.equal(
                keeps,
                returned,
                `${sql} with ${String(bound)} on ${JSON.stringify(image)}: filter ${read.filter.text}`,
              );
            }
          },
        ),
        { numRuns: 3000, seed: 34 },
      );
      assert.ok(told > 1500, `only ${told} of 3000 cases could be told`);
      await db.close();
    });
  });
