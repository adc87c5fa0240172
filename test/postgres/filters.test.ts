import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import type { TableChange, TableRead } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import type { Decision } from "../../packages/livecmd/runtime/db/rowFilter.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import type { PostgresDatabase } from "../../packages/livecmd/runtime/db/postgres/postgresDatabase.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

/**
 * PostgreSQL itself is the oracle of the filters livecmd reads off its generic plans: for a row
 * of each type livecmd compares, indexed or not, and a condition of each form with a bound value,
 * the filter a read of `WHERE <condition>` reports keeps the row's image from the change feed
 * whenever PostgreSQL returns the row, and, where every test it made could be told, exactly then.
 */
const U1 = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const U2 = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";

const ORDERED = [
  "c = ?",
  "c <> ?",
  "c < ?",
  "c <= ?",
  "c > ?",
  "c >= ?",
  "c BETWEEN ? AND ?",
  "NOT (c >= ?)",
  "c IS NULL",
  "c IS NOT NULL",
  "c IN (?, ?)",
  "c NOT IN (?, ?)",
  "c > ? OR c = ?",
];
const TEXT = [...ORDERED, "c LIKE ?", "c NOT LIKE ?", "c LIKE ? || '%'"];
const BOOLEAN = ["c = ?", "c <> ?", "c", "NOT c", "c IS NULL", "c OR c = ?"];

/** Each type: its values (stored and bound) and its conditions. */
const TYPES: readonly [type: string, values: readonly unknown[], conditions: readonly string[]][] =
  [
    ["integer", [null, -1, 0, 7, "7", "07", 3n], ORDERED],
    ["bigint", [null, 9007199254740993n, "9007199254740992", 1, -5n], ORDERED],
    ["numeric", [null, 1.5, "1.50", 7, "-0.5", "1e3", "7.000"], ORDERED],
    ["real", [null, 1.5, 0.1, "0.1", 7, -0.5], ORDERED],
    ["double precision", [null, 1.5, 0.1, 7, "-0.5", 1e20], ORDERED],
    ["text", [null, "abc", "ABC", "a%", "", "abc  ", "b_c", "ab\\%"], TEXT],
    ["varchar(20)", [null, "abc", "ABC", "a%", "", "b"], TEXT],
    ["boolean", [null, true, false, "t"], BOOLEAN],
    ["uuid", [null, U1, U1.toUpperCase(), U2], ORDERED],
    ["date", [null, "2024-01-02", "2024-01-10", "2024-1-3", "2023-12-31"], ORDERED],
    ["timestamp", [null, "2024-01-02 03:04:05", "2024-01-02T03:04:05.5", "2024-01-02"], ORDERED],
  ];

function tableName(type: number, indexed: boolean): string {
  return `t${type}${indexed ? "i" : ""}`;
}

/** Whether `decision` keeps `image`, and whether every test it took could be told. */
function decide(decision: Decision, image: Readonly<Record<string, string | null>>) {
  let node = decision;
  while (typeof node !== "boolean") {
    const outcome = node.atom.test(image);
    if (outcome === undefined) return { keeps: true, sure: false };
    node = outcome ? node.ifTrue : node.ifFalse;
  }
  return { keeps: node, sure: true };
}

describe("PostgreSQL filters", { skip: server.skip }, () => {
  let db: PostgresDatabase;
  const changes: TableChange[] = [];

  before(async () => {
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      TYPES.map(
        ([type], i) =>
          `CREATE TABLE ${tableName(i, false)} (id integer PRIMARY KEY, c ${type});
           CREATE TABLE ${tableName(i, true)} (id integer PRIMARY KEY, c ${type});
           CREATE INDEX ON ${tableName(i, true)} (c);`,
      ).join("\n"),
    );
    db = postgres(url).open((each) => changes.push(...each));
  });
  after(() => db?.close());

  test("a filter keeps a row's image exactly when PostgreSQL returns the row, where it can tell, and whenever it does (each type, condition; scans and indexes)", async () => {
    let told = 0;
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 0, max: TYPES.length - 1 })
          .chain((type) =>
            fc.tuple(
              fc.constant(type),
              fc.boolean(),
              fc.constantFrom(...TYPES[type]![2]),
              fc.constantFrom(...TYPES[type]![1]),
              fc.array(fc.constantFrom(...TYPES[type]![1]), { minLength: 2, maxLength: 2 }),
            ),
          ),
        async ([type, indexed, condition, stored, bound]) => {
          const table = tableName(type, indexed);
          await db.run(`DELETE FROM ${table}`);
          await db.run(`INSERT INTO ${table} (id, c) VALUES (1, ?)`, stored as never);
          await db.caughtUp();
          const image = changes.at(-1)!.rows!.at(-1)!;
          const sql = `SELECT id FROM ${table} WHERE ${condition}`;
          const params = bound.slice(0, (sql.match(/\?/g) ?? []).length);
          const reads: TableRead[] = [];
          const rows = await db
            .observedBy({ read: (each) => reads.push(...each) })
            .all(sql, ...(params as never[]))
            .catch(() => undefined); // a value the type refuses: nothing to compare
          if (!rows) return;
          const returned = rows.length === 1;
          const read = reads.find((each) => each.table === table)!;
          const label = `${sql} with ${JSON.stringify(params, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))} on ${JSON.stringify(image)}`;
          if (read.column !== undefined) {
            const key = image[read.column];
            assert.ok(
              !returned || key === undefined || (key !== null && read.values.includes(key)),
              label,
            );
            return;
          }
          if (!read.filter) return;
          assert.ok(
            read.filter.admits(image) || !returned,
            `${label}: ${read.filter.text} drops it`,
          );
          const { keeps, sure } = decide(read.filter.decision, image);
          if (!sure) return;
          told += 1;
          assert.equal(keeps, returned, `${label}: ${read.filter.text}`);
        },
      ),
      { numRuns: 600, seed: 34 },
    );
    assert.ok(told > 250, `only ${told} of 600 cases could be told`);
  });
});
