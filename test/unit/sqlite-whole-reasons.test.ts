import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TableRead } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { wholeReasonText } from "../../packages/livecmd/runtime/db/wholeReason.ts";
import { StatementPlans } from "../../packages/livecmd/runtime/db/sqlite/plan/statementPlans.ts";
import { sqliteDialect } from "../../packages/livecmd/runtime/db/sqlite/sqliteDialect.ts";
import { readSchema } from "../../packages/livecmd/runtime/db/sqlite/sqliteSchema.ts";
import { SQLITE_DRIVERS } from "../helpers/sqliteDrivers.ts";

/*
 * docs/mcp.md "What counts as a change": why SQLite's program reads a table whole, in the words
 * `LIVECMD_DEBUG=live` and `livecmd inspect` use (`whole table customers: LIKE on name`); and
 * what a read livecmd follows reads instead (a filter, keys looked up off other rows), with why
 * a lookup falls back to whole (more values or supplying rows than it records or tests).
 */

const SCHEMA = `
  CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT UNIQUE, status TEXT);
  CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, placed_on TEXT);
  CREATE INDEX orders_by_placed_on ON orders (placed_on);
  CREATE INDEX customers_by_lower_name ON customers (lower(name));
`;

/** 1,001 orders of distinct customers, placed on distinct days (more than a lookup records). */
const MANY_ORDERS = `
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1001)
  INSERT INTO orders SELECT i, i, printf('2025-%05d', i) FROM n;
`;
/** 10,001 orders after 2025-01-01 (more than a lookup tests against a filter). */
const MORE_ORDERS = `
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10001)
  INSERT INTO orders SELECT i, i % 7, printf('2025-%05d', i) FROM n;
`;

const CASES: {
  rule: string;
  sql: string;
  params: unknown[];
  rows?: string;
  whole: Record<string, string>;
}[] = [
  {
    rule: "a LIKE on a column, through a function of it",
    sql: "SELECT * FROM customers WHERE LOWER(name) LIKE ? ESCAPE '\\'",
    params: ["ada%"],
    whole: { customers: "LIKE on name" },
  },
  {
    rule: "a GLOB",
    sql: "SELECT * FROM customers WHERE email GLOB ?",
    params: ["a*"],
    whole: { customers: "GLOB on email" },
  },
  {
    rule: "a column no index keys: a filter (#34), matched against the changed row",
    sql: "SELECT * FROM customers WHERE status = ?",
    params: ["vip"],
    whole: { customers: "where status = 'vip'" },
  },
  {
    rule: "a comparison of a column livecmd cannot evaluate",
    sql: "SELECT * FROM customers WHERE length(status) > ?",
    params: [3],
    whole: { customers: "a filter on status" },
  },
  {
    rule: "a range through an index: a filter (#34)",
    sql: "SELECT * FROM orders WHERE placed_on BETWEEN ? AND ?",
    params: ["2025-01-01", "2025-01-31"],
    whole: { orders: "where placed_on BETWEEN '2025-01-01' AND '2025-01-31'" },
  },
  {
    rule: "a range of rowids: a filter (#34)",
    sql: "SELECT * FROM orders WHERE id > ?",
    params: [7],
    whole: { orders: "where rowid > 7" },
  },
  {
    rule: "every row, unfiltered",
    sql: "SELECT count(*) FROM orders",
    params: [],
    whole: { orders: "a scan of every row" },
  },
  {
    rule: "an index on an expression",
    sql: "SELECT * FROM customers WHERE lower(name) = ?",
    params: ["ada"],
    whole: {
      customers:
        "looked up through an index on an expression or a collation livecmd does not key on",
    },
  },
  {
    rule: "rows found by a value read off another table's rows (a join on a foreign key): keys looked up (#34)",
    sql: "SELECT c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?",
    params: [7],
    whole: { orders: "by rowid", customers: "by rowid looked up from orders.customer_id" },
  },
  {
    rule: "a join supplied by more values than a lookup records",
    sql: "SELECT c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
    params: [],
    rows: MANY_ORDERS,
    whole: {
      orders: "a scan of every row",
      customers: "keys looked up from orders.customer_id: more than 1,000 values",
    },
  },
  {
    rule: "a join supplied by more rows than a lookup tests against their filter",
    sql: "SELECT c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.placed_on > ?",
    params: ["2025-"],
    rows: MORE_ORDERS,
    whole: {
      orders: "where placed_on > '2025-'",
      customers: "keys looked up from orders.customer_id: more than 10,000 supplying rows",
    },
  },
  {
    rule: "named parameters",
    sql: "SELECT * FROM customers WHERE id = :id",
    params: [{ id: 7 }],
    whole: { customers: "named parameters (:id, @id, $id), which EXPLAIN does not tell apart" },
  },
  {
    rule: "a key livecmd cannot compare as SQLite would",
    sql: "SELECT * FROM customers WHERE id = ?",
    params: [{}],
    whole: { customers: "a key value livecmd cannot compare as SQLite would" },
  },
];

/** A whole read's reason; else what #34 reads the table by instead (a filter, looked-up keys). */
function readText(read: TableRead): string {
  if (read.filter) return `where ${read.filter.text}`;
  if (read.column === undefined) return wholeReasonText(read.reason!);
  return `by ${read.column}${read.lookedUp ? ` looked up from ${read.lookedUp}` : ""}`;
}

for (const driver of SQLITE_DRIVERS)
  describe(`SQLite (${driver.name}): why a table is read whole`, { skip: driver.skip }, () => {
    for (const { rule, sql, params, rows, whole } of CASES)
      it(rule, () => {
        const connection = driver.open(":memory:");
        connection.exec(SCHEMA + (rows ?? ""));
        const schema = readSchema(connection);
        const plans = new StatementPlans(
          connection,
          () => schema,
          (text) => sqliteDialect.planReads({ connection, schema }, text),
        );
        const reads = plans.bind(plans.of(sql).reads, params);
        const reasons = Object.fromEntries(reads.map((read) => [read.table, readText(read)]));
        assert.deepEqual(reasons, whole);
        connection.close();
      });
  });
