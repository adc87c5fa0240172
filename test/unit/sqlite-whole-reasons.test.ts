import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WholeReason } from "../../packages/livecmd/runtime/db/wholeReason.ts";
import { wholeReasonText } from "../../packages/livecmd/runtime/db/wholeReason.ts";
import {
  boundReads,
  StatementPlans,
} from "../../packages/livecmd/runtime/db/sqlite/statementPlans.ts";
import { readSchema } from "../../packages/livecmd/runtime/db/sqlite/sqliteSchema.ts";
import { SQLITE_DRIVERS } from "../helpers/sqliteDrivers.ts";

/*
 * docs/mcp.md "What counts as a change": why SQLite's program reads a table whole, in the words
 * `LIVECMD_DEBUG=live` and `livecmd inspect` use (`whole table customers: LIKE on name`).
 */

const SCHEMA = `
  CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT UNIQUE, status TEXT);
  CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, placed_on TEXT);
  CREATE INDEX orders_by_placed_on ON orders (placed_on);
  CREATE INDEX customers_by_lower_name ON customers (lower(name));
`;

const CASES: { rule: string; sql: string; params: unknown[]; whole: Record<string, string> }[] = [
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
    rule: "a column no index keys",
    sql: "SELECT * FROM customers WHERE status = ?",
    params: ["vip"],
    whole: { customers: "a filter on status" },
  },
  {
    rule: "a range through an index",
    sql: "SELECT * FROM orders WHERE placed_on BETWEEN ? AND ?",
    params: ["2025-01-01", "2025-01-31"],
    whole: { orders: "a range on placed_on" },
  },
  {
    rule: "a range of rowids",
    sql: "SELECT * FROM orders WHERE id > ?",
    params: [7],
    whole: { orders: "a range on rowid" },
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
    rule: "rows found by a value read off another table's rows (a join on a foreign key)",
    sql: "SELECT c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?",
    params: [7],
    whole: { customers: "looked up by values read off other rows: a join, a subquery" },
  },
  {
    rule: "named parameters",
    sql: "SELECT * FROM customers WHERE id = :id",
    params: [{ id: 7 }],
    whole: { customers: "named parameters (:id), which EXPLAIN does not tell apart" },
  },
  {
    rule: "a key livecmd cannot compare as SQLite would",
    sql: "SELECT * FROM customers WHERE id = ?",
    params: [{}],
    whole: { customers: "a key value livecmd cannot compare as SQLite would" },
  },
];

for (const driver of SQLITE_DRIVERS)
  describe(`SQLite (${driver.name}): why a table is read whole`, { skip: driver.skip }, () => {
    for (const { rule, sql, params, whole } of CASES)
      it(rule, () => {
        const connection = driver.open(":memory:");
        connection.exec(SCHEMA);
        const schema = readSchema(connection);
        const plans = new StatementPlans(connection, () => schema);
        const reads = boundReads(plans.of(sql).reads, params);
        const reasons = Object.fromEntries(
          reads.flatMap((read) =>
            read.column === undefined
              ? [[read.table, wholeReasonText(read.reason as WholeReason)]]
              : [],
          ),
        );
        assert.deepEqual(reasons, whole);
        connection.close();
      });
  });
