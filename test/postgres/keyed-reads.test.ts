import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import type { TableRead } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import type { WholeReason } from "../../packages/livecmd/runtime/db/wholeReason.ts";
import {
  boundReads,
  lookedUpReads,
} from "../../packages/livecmd/runtime/db/postgres/plan/boundReads.ts";
import type { PlannedRead } from "../../packages/livecmd/runtime/db/postgres/plan/planReads.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { INSTALL_CHANGE_FEED } from "../../packages/livecmd/runtime/db/postgres/changes/feedInstall.ts";
import { explainTables } from "../../packages/livecmd/runtime/db/postgres/plan/planTables.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

/** Key columns of each kind the feed carries, columns it does not (numeric, a nondeterministic collation, unindexed), a big and a tiny table. */
const SCHEMA = `
  CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
  CREATE TABLE customers (id integer PRIMARY KEY, email varchar(80) UNIQUE, handle text COLLATE nocase UNIQUE,
                          score numeric UNIQUE, ref uuid UNIQUE, big bigint UNIQUE, name text);
  CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer REFERENCES customers(id), total integer);
  CREATE INDEX orders_customer ON orders (customer_id);
  CREATE TABLE tiny (k text PRIMARY KEY, v integer);
  CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
  INSERT INTO customers SELECT g, 'c' || g || '@x', 'h' || g, g, md5(g::text)::uuid, g, 'name ' || g
    FROM generate_series(1, 2000) g;
  INSERT INTO orders SELECT g, g % 2000 + 1, g FROM generate_series(1, 4000) g;
  INSERT INTO tiny VALUES ('a', 1);
  ANALYZE;
`;

const UUID = "6F9619FF-8B86-D011-B42D-00C04FC964FF";

const UNSURE = unknown(
  "a parameter livecmd cannot be sure how PostgreSQL reads (' 7', a uuid in braces, a Buffer)",
);
const SUBPLAN = unknown("a parameter in a plan with a subquery, whose result prints as $n too");

/** Statement, parameters, and the reads a run of it reports. */
const CASES: [
  sql: string,
  params: unknown[],
  reads: (TableRead | { table: string; filter: string })[],
][] = [
  ["SELECT * FROM customers WHERE id = ?", [7], [keyed("customers", "id", "7")]],
  ["SELECT * FROM customers WHERE id = ?", ["007"], [keyed("customers", "id", "7")]],
  ["SELECT * FROM customers WHERE id = ?", [" 7"], [whole("customers", UNSURE)]],
  ["SELECT * FROM customers WHERE id = ?", [null], [keyed("customers", "id")]],
  [
    "SELECT * FROM customers WHERE big = ?",
    [9007199254740993n],
    [keyed("customers", "big", "9007199254740993")],
  ],
  ["SELECT * FROM customers WHERE email = ?", ["c7@x"], [keyed("customers", "email", "c7@x")]],
  [
    "SELECT * FROM customers WHERE ref = ?",
    [UUID.replaceAll("-", "")],
    [keyed("customers", "ref", UUID.toLowerCase())],
  ],
  [
    `SELECT * FROM customers WHERE ref = '${UUID}'`,
    [],
    [keyed("customers", "ref", UUID.toLowerCase())],
  ],
  [
    "SELECT * FROM customers WHERE id IN (?, ?, 3)",
    [1, 2n],
    [keyed("customers", "id", "1", "2", "3")],
  ],
  [
    "SELECT * FROM customers WHERE id = ANY (?)",
    ["{4,5,NULL}"],
    [keyed("customers", "id", "4", "5")],
  ],
  [
    "SELECT * FROM customers WHERE email = ANY ('{\"a b@x\",c@x}')",
    [],
    [keyed("customers", "email", "a b@x", "c@x")],
  ],
  ["SELECT * FROM customers WHERE id = ? OR id = ?", [1, 2], [keyed("customers", "id", "1", "2")]],
  [
    "SELECT * FROM customers WHERE id = ? OR email = ?",
    [1, "a"],
    [filtered("customers", "id = 1 OR email = 'a'")],
  ],
  [
    "SELECT * FROM customers WHERE id = ? AND name LIKE ?",
    [1, "a%"],
    [keyed("customers", "id", "1")],
  ],
  ["SELECT * FROM tiny WHERE k = ?", ["a"], [keyed("tiny", "k", "a")]],
  // A key column needs no index: the feed carries every short column of a key type.
  ["SELECT * FROM customers WHERE name = ?", ["x"], [keyed("customers", "name", "x")]],
  // Filters: numeric (7.0 = 7) compared by value, a range, LIKE, IS NULL, NOT IN, a cast that keeps values.
  // (A filter is printed in the plan's order: PostgreSQL puts the cheaper tests first.)
  ["SELECT * FROM customers WHERE score = ?", [7], [filtered("customers", "score = 7")]],
  ["SELECT * FROM customers WHERE id < ?", [7], [filtered("customers", "id < 7")]],
  [
    "SELECT * FROM customers WHERE name LIKE ? AND score BETWEEN ? AND ?",
    ["name 1%", 1.5, "20"],
    [filtered("customers", "score >= 1.5 AND score <= 20 AND name LIKE 'name 1%'")],
  ],
  [
    "SELECT * FROM orders WHERE total > 100 AND customer_id NOT IN (1, 2) AND customer_id IS NOT NULL",
    [],
    [filtered("orders", "customer_id IS NOT NULL AND total > 100 AND customer_id <> ALL (1, 2)")],
  ],
  ["SELECT * FROM customers WHERE NOT (big >= ?)", [3n], [filtered("customers", "big < 3")]],
  // Whole, and why: a nondeterministic collation, a function of the key, a pattern through a function.
  ["SELECT * FROM customers WHERE handle = ?", ["H7"], [whole("customers", notKeyed("handle"))]],
  ["SELECT * FROM customers WHERE id + 0 = ?", [7], [whole("customers", filter("id"))]],
  [
    "SELECT * FROM customers WHERE lower(name) LIKE ?",
    ["ada%"],
    [whole("customers", filter("name", "LIKE"))],
  ],
  [
    "SELECT * FROM customers WHERE email ILIKE ?",
    ["ada%"],
    [whole("customers", filter("email", "ILIKE"))],
  ],
  // A join's inner side looked up by the outer side's key; a view; a subquery's own parameters.
  [
    "SELECT c.id, count(o.id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE c.id = ? GROUP BY c.id",
    [9],
    [keyed("customers", "id", "9"), keyed("orders", "customer_id", "9")],
  ],
  // Looked up: a join by a column the outer side is not keyed on, a subquery's values.
  [
    "SELECT * FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.email = ?",
    ["c9@x"],
    [
      keyed("customers", "email", "c9@x"),
      { ...keyed("orders", "customer_id", "9"), lookedUp: "customers.id" },
    ],
  ],
  [
    "SELECT * FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE id = ANY (?)) ORDER BY id",
    ["{5,2005}"],
    [
      keyed("orders", "id", "5", "2005"),
      { ...keyed("customers", "id", "6"), lookedUp: "orders.customer_id" },
    ],
  ],
  // A hash join: one side read by its own conditions, the other looked up off the rows they keep
  // (livecmd reads only those its comparisons keep), never each side off the other (a new order
  // of a customer no order named yet would go unseen).
  [
    "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > ?",
    [3990],
    [
      filtered("orders", "total > 3990 AND (conditions livecmd cannot test)"),
      {
        ...keyed(
          "customers",
          "id",
          "1992",
          "1993",
          "1994",
          "1995",
          "1996",
          "1997",
          "1998",
          "1999",
          "2000",
          "1",
        ),
        lookedUp: "orders.customer_id",
      },
    ],
  ],
  // A lookup past its bounds: the looked-up side whole, and why.
  [
    "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > ?",
    [10],
    [
      filtered("orders", "total > 10 AND (conditions livecmd cannot test)"),
      whole("customers", {
        kind: "lookup",
        from: "orders.customer_id",
        beyond: "more than 1,000 values",
      }),
    ],
  ],
  ["SELECT * FROM big_orders WHERE id = ?", [5], [keyed("orders", "id", "5")]],
  [
    "SELECT * FROM orders WHERE id = (SELECT max(id) FROM orders WHERE customer_id = ?)",
    [3],
    [whole("orders", SUBPLAN)],
  ],
  // The plan prints the subquery's result as $1, like the parameter: neither keys.
  [
    "SELECT * FROM customers WHERE id = (SELECT max(customer_id) FROM orders WHERE id = ?)",
    [3],
    [whole("customers", SUBPLAN), whole("orders", SUBPLAN)],
  ],
  ["SELECT count(*) FROM orders", [], [whole("orders", { kind: "scan" })]],
];

function keyed(table: string, column: string, ...values: string[]) {
  return { table, column, values };
}

function whole(table: string, reason: WholeReason): TableRead {
  return { table, reason };
}

function unknown(what: string): WholeReason {
  return { kind: "unknown", what };
}

function filter(column: string, match?: "LIKE" | "ILIKE"): WholeReason {
  return { kind: "scan", filter: match ? { column, match } : { column } };
}

function notKeyed(column: string): WholeReason {
  return unknown(
    `an equality on ${column} that livecmd does not key on (its type, its collation, or an expression of it)`,
  );
}

/** A filtered read, by its filter's text. */
function filtered(table: string, filter: string) {
  return { table, filter };
}

/** What a run of a statement planned as `reads` reports: its own values' reads, then those it looked up; a filter by its text. */
async function bound(client: pg.Client, reads: readonly PlannedRead[], params: unknown[]) {
  const { now, later } = boundReads(reads, params);
  const looked = await lookedUpReads(later, params, (config) => client.query(config as never));
  return [...now, ...looked].map((read) =>
    read.filter ? { table: read.table, filter: read.filter.text } : read,
  );
}

describe(
  "PostgreSQL: the rows a statement reads, from its generic plan",
  { skip: server.skip },
  () => {
    let url: string;
    let client: pg.Client;

    before(async () => {
      url = await emptyDatabase(server.url!);
      psql(url, SCHEMA);
      psql(url, INSTALL_CHANGE_FEED); // explainTables names tables as the feed does
      client = new pg.Client({ connectionString: url });
      await client.connect();
    });
    after(() => client?.end());

    for (const [sql, params, expected] of CASES)
      test(`${sql} with ${JSON.stringify(params, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))}`, async () => {
        const text = sql.replace(
          /\?/g,
          (() => {
            let n = 0;
            return () => `$${(n += 1)}`;
          })(),
        );
        const access = await explainTables(client as never, text);
        assert.ok("reads" in access, JSON.stringify(access));
        assert.deepEqual(await bound(client, access.reads, params), expected);
      });
  },
);

describe("PostgreSQL: reads are reported before the statement runs", { skip: server.skip }, () => {
  test("a write committed while a watched read runs, after its snapshot, re-runs it", async () => {
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      "CREATE TABLE notes (id integer PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'old')",
    );
    const sql = "SELECT body, pg_sleep(0.5) IS NULL AS slept FROM notes WHERE id = ?";
    const app = defineApp({
      name: "slow",
      commands: { note: command({ live: true }, async (ctx, id: number) => ctx.db.get(sql, id)) },
      agent: { grant: [] },
      database: postgres(url),
    });
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await app.db.get(sql, 0); // connected, the feed installed (no row: no sleep)
      const live = new LiveRegistry(app, { onError: () => {} });
      const told: string[] = [];
      const watching = live.add("note", [1], { uri: "n://1", notify: (uri) => told.push(uri) });
      // Once the run's statement runs (its snapshot taken), this commits while it sleeps.
      for (;;) {
        const { rowCount } = await writer.query(
          "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(0.5)%' AND pid <> pg_backend_pid()",
        );
        if (rowCount) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writer.query("UPDATE notes SET body = 'new' WHERE id = 1");
      await watching;
      await live.settled();
      assert.deepEqual(told, ["n://1"]);
      live.close();
    } finally {
      await writer.end();
      await app.close();
    }
  });
});
