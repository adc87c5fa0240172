import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { readLines } from "../../packages/livecmd-kit/cli/inspectReads.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import type { SqlParam } from "../../packages/livecmd/runtime/db/database.ts";
import type { TableRead } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import { WITHOUT_EVENT_TRIGGERS } from "../../packages/livecmd/runtime/db/postgres/changes/installChangeFeed.ts";
import {
  postgres,
  type PostgresOptions,
} from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";

const server = postgresServer();

const SCHEMA = `
  CREATE TABLE events (id integer, at date, body text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
  CREATE TABLE events_2026_11 PARTITION OF events FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
  CREATE TABLE events_2026_12 PARTITION OF events FOR VALUES FROM ('2026-12-01') TO ('2027-01-01');
  CREATE TABLE events_2027_01 (id integer, at date, body text, PRIMARY KEY (id, at));
  INSERT INTO events_2027_01 VALUES (9, '2027-01-05', 'waiting to be attached');
  CREATE TABLE shapes (id integer PRIMARY KEY, name text);
  CREATE TABLE circles (radius integer) INHERITS (shapes);
  CREATE TABLE tagged (tag text);
  CREATE TABLE labels (size integer) INHERITS (shapes, tagged);
  CREATE TABLE accounts (id integer PRIMARY KEY, owner text);
  CREATE TABLE ledger (account_id integer REFERENCES accounts, amount integer);
  CREATE TABLE other (id integer PRIMARY KEY);
  INSERT INTO accounts VALUES (1, 'ann'), (2, 'bob');
  CREATE FUNCTION account_balance(a integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
    BEGIN RETURN (SELECT coalesce(sum(amount), 0) FROM ledger WHERE account_id = a); END $$;
  CREATE FUNCTION sql_balance(a integer) RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT coalesce(sum(amount), 0) FROM ledger WHERE account_id = a $$;
  CREATE FUNCTION shout(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN upper(t); END $$;
  CREATE MATERIALIZED VIEW totals AS SELECT account_id, sum(amount) AS total FROM ledger GROUP BY account_id;
  CREATE EXTENSION postgres_fdw;
  CREATE SERVER here FOREIGN DATA WRAPPER postgres_fdw;
  CREATE FOREIGN TABLE remote_things (id integer) SERVER here;
`;

/**
 * Row-level security applies to a table's owner only when forced, and never to a superuser: this
 * schema is made by, and read as, the role \`reader\`, which owns it (as livecmd's install needs).
 */
const READER_SCHEMA = `
  CREATE TABLE members (name text PRIMARY KEY);
  CREATE TABLE notes (id integer PRIMARY KEY, owner text, body text);
  CREATE TABLE other (id integer PRIMARY KEY);
  INSERT INTO members VALUES ('ann'); INSERT INTO notes VALUES (1, 'ann', 'a'), (2, 'bob', 'b');
  ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
  ALTER TABLE notes FORCE ROW LEVEL SECURITY;
  CREATE POLICY members_only ON notes USING (owner IN (SELECT name FROM members));
`;

const READER_ROLE = `
  DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
  DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO reader', current_database()); END $$;
  ALTER SCHEMA public OWNER TO reader;
`;

/** A case: what a live command reads, a write that changes its result, and one that must not re-run it. */
interface Case {
  rule: string;
  sql: string;
  args?: SqlParam[];
  changes: string;
  leavesAlone?: string;
  options?: PostgresOptions;
  /** The schema is READER_SCHEMA, made and read as the role `reader`. */
  asReader?: boolean;
}

const CASES: Case[] = [
  {
    rule: "a read of a partitioned table, planned as scans of partitions, hears an insert through the parent",
    sql: "SELECT id, body FROM events WHERE at >= ? ORDER BY id",
    args: ["2026-11-15"],
    changes: "INSERT INTO events VALUES (1, '2026-12-02', 'x')",
  },
  {
    rule: "... and an insert made into a partition directly",
    sql: "SELECT id, body FROM events WHERE at >= ? ORDER BY id",
    args: ["2026-11-15"],
    changes: "INSERT INTO events_2026_12 VALUES (2, '2026-12-03', 'y')",
  },
  {
    rule: "a read of one partition hears a write through the parent routed to it; it is keyed as the parent",
    sql: "SELECT body FROM events_2026_11 WHERE id = ?",
    args: [3],
    changes: "INSERT INTO events VALUES (3, '2026-11-20', 'z')",
    leavesAlone: "INSERT INTO events VALUES (4, '2026-11-20', 'other key')",
  },
  {
    rule: "a read of an inheritance parent hears a write to a child",
    sql: "SELECT id, name FROM shapes ORDER BY id",
    changes: "INSERT INTO circles VALUES (1, 'c', 5)",
  },
  {
    rule: "a read of a child hears an update made through the parent",
    sql: "SELECT id, name FROM circles ORDER BY id",
    changes: "INSERT INTO circles VALUES (2, 'd', 6); UPDATE shapes SET name = 'e' WHERE id = 2",
  },
  {
    rule: "a table with two parents: a read that scans it reads every table",
    sql: "SELECT tag FROM tagged ORDER BY tag",
    changes: "INSERT INTO labels VALUES (7, 'l', 'new tag', 1)",
  },
  {
    rule: "a plpgsql function in the select list reads every table",
    sql: "SELECT id, owner, account_balance(id) AS balance FROM accounts WHERE id = ?",
    args: [1],
    changes: "INSERT INTO ledger VALUES (1, 10)",
  },
  {
    rule: "... in a WHERE clause",
    sql: "SELECT id FROM accounts WHERE account_balance(id) > ? ORDER BY id",
    args: [5],
    changes: "INSERT INTO ledger VALUES (2, 20)",
  },
  {
    rule: "... in an ORDER BY",
    sql: "SELECT id FROM accounts ORDER BY account_balance(id) DESC, id",
    changes: "INSERT INTO ledger VALUES (2, 50)",
  },
  {
    rule: "a SQL function of one statement is planned: it reads its body's tables, and no others",
    sql: "SELECT id, sql_balance(id) AS balance FROM accounts WHERE id = ?",
    args: [1],
    changes: "INSERT INTO ledger VALUES (1, 7)",
    leavesAlone: "INSERT INTO other VALUES (1)",
  },
  {
    rule: "a function named in pureFunctions reads nothing",
    sql: "SELECT shout(owner) AS owner FROM accounts WHERE id = ?",
    args: [2],
    changes: "UPDATE accounts SET owner = 'bo' WHERE id = 2",
    leavesAlone: "INSERT INTO other VALUES (2)",
    options: { pureFunctions: ["shout", "public.shout"] },
  },
  {
    rule: "a materialized view's REFRESH notifies its readers",
    sql: "SELECT account_id, total FROM totals ORDER BY account_id",
    changes: "INSERT INTO ledger VALUES (1, 1); REFRESH MATERIALIZED VIEW totals",
  },
  {
    rule: "a row-level security policy's read of another table is in the plan",
    sql: "SELECT id, body FROM notes ORDER BY id",
    changes: "INSERT INTO members VALUES ('bob')",
    leavesAlone: "INSERT INTO other VALUES (3)",
    asReader: true,
  },
  {
    rule: "a partition attached later: the DDL re-runs the read, and the read then hears writes to it",
    sql: "SELECT id, body FROM events WHERE at >= ? ORDER BY id",
    args: ["2027-01-01"],
    changes:
      "ALTER TABLE events ATTACH PARTITION events_2027_01 FOR VALUES FROM ('2027-01-01') TO ('2027-02-01')",
  },
];

describe("PostgreSQL: no read hides a change", { skip: server.skip }, () => {
  for (const each of CASES)
    test(each.rule, async () => {
      const url = await emptyDatabase(server.url!);
      if (each.asReader) {
        psql(url, READER_ROLE);
        psql(asRole(url, "reader"), READER_SCHEMA);
      } else psql(url, SCHEMA);
      const log: string[] = [];
      const app = defineApp({
        name: "hidden",
        commands: {
          read: command({ live: true }, async (ctx, args: SqlParam[]) =>
            ctx.db.all(each.sql, ...args),
          ),
        },
        agent: { grant: [] },
        database: postgres(each.asReader ? asRole(url, "reader") : url, {
          ...each.options,
          log: (line) => log.push(line),
        }),
      });
      const live = new LiveRegistry(app, { onError: (error) => log.push(String(error)) });
      try {
        const received: string[] = [];
        await live.add("read", [each.args ?? []], {
          uri: "hidden://read",
          notify: (uri) => received.push(uri),
        });
        if (each.leavesAlone) {
          psql(url, each.leavesAlone);
          await app.db.caughtUp();
          await live.settled();
          assert.equal(live.stats().reruns, 0, `re-run by: ${each.leavesAlone}`);
        }
        psql(url, each.changes);
        await app.db.caughtUp();
        await live.settled();
        assert.deepEqual(
          received,
          ["hidden://read"],
          `not notified of: ${each.changes}\n${log.join("\n")}`,
        );
        // Only a superuser installs the event triggers; the role reader is told what that costs.
        assert.deepEqual(
          log.filter((line) => !line.includes("cannot tell which tables")),
          each.asReader ? [WITHOUT_EVENT_TRIGGERS] : [],
        );
      } finally {
        await app.close();
      }
    });

  test("a read of a foreign table is logged at subscribe time: its changes are never notified", async () => {
    const url = await emptyDatabase(server.url!);
    psql(url, SCHEMA);
    const log: string[] = [];
    const app = defineApp({
      name: "hidden",
      // The foreign server is nowhere: the scan is planned, and never run (the parameter is false).
      commands: {
        read: command({ live: true }, async (ctx) => ctx.db.all(FOREIGN_READ, false)),
      },
      agent: { grant: [] },
      database: postgres(url, { log: (line) => log.push(line) }),
    });
    const live = new LiveRegistry(app, { onError: () => {} });
    try {
      await live.add("read", [], { uri: "hidden://read", notify: () => {} });
      assert.deepEqual(log, [
        `livecmd: ${JSON.stringify(FOREIGN_READ.replace("?", "$1"))} reads remote_things, a foreign table: livecmd is never told of its changes`,
      ]);
    } finally {
      await app.close();
    }
  });
});

const FOREIGN_READ = "SELECT 1 AS one WHERE ?::boolean AND EXISTS (SELECT 1 FROM remote_things)";

describe("PostgreSQL: LIVECMD_CHECK_READS=1", { skip: server.skip }, () => {
  test("logs a statement whose read set lacks a table PostgreSQL says it scanned (a function wrongly named pure), once, and serves it all the same", async () => {
    const url = await emptyDatabase(server.url!);
    psql(url, SCHEMA + "INSERT INTO ledger VALUES (1, 5);");
    const log: string[] = [];
    process.env.LIVECMD_CHECK_READS = "1";
    const database = postgres(url, {
      pureFunctions: ["account_balance"],
      log: (line) => log.push(line),
    });
    delete process.env.LIVECMD_CHECK_READS;
    const sql = "SELECT account_balance(id) AS balance FROM accounts WHERE id = ?";
    const app = defineApp({
      name: "hidden",
      commands: {
        balance: command({ live: true }, async (ctx, id: number) => ctx.db.get(sql, id)),
      },
      agent: { grant: [] },
      database,
    });
    try {
      assert.deepEqual(await app.db.get(sql, 1), { balance: 5 });
      assert.deepEqual(await app.db.transaction(() => app.db.get(sql, 2)), { balance: 0 });
      const line = `livecmd: LIVECMD_CHECK_READS: ${JSON.stringify(sql.replace("?", "$1"))} scanned ledger, which its read set lacks: a write there would not re-run its subscriptions (if it calls a function named in pureFunctions that reads tables, take that name out; otherwise please report it)`;
      assert.deepEqual(log, [line], "said once, though the statement ran twice");
      log.length = 0;
      await app.db.get("SELECT owner FROM accounts WHERE id = ?", 1);
      assert.deepEqual(log, [], "a complete read set is not logged");
    } finally {
      await app.close();
    }
  });
});

describe(
  "PostgreSQL: livecmd inspect --reads says why a read is every table",
  { skip: server.skip },
  () => {
    test("a plpgsql call names the function; a foreign table says it is never notified", async () => {
      const url = await emptyDatabase(server.url!);
      psql(url, SCHEMA);
      const app = defineApp({
        name: "hidden",
        commands: {
          balance: command({ live: true }, async (ctx, id: number) =>
            ctx.db.get("SELECT account_balance(id) AS balance FROM accounts WHERE id = ?", id),
          ),
          remote: command({ live: true }, async (ctx) => ctx.db.all(FOREIGN_READ, false)),
        },
        agent: { grant: [] },
        database: postgres(url, { log: () => {} }),
      });
      const linesOf = async (name: string, args: unknown[]) => {
        const reads: TableRead[] = [];
        await engineOf(app).run(name, args, {
          origin: Origin.Agent,
          observer: { read: (each) => reads.push(...each), sawPrincipal: () => {} },
        });
        return readLines(reads, (key) => JSON.stringify(key));
      };
      try {
        assert.deepEqual(await linesOf("balance", [1]), [
          "every table: every write re-runs this (it calls public.account_balance(), a plpgsql function whose reads no plan shows; if it reads no table, name it in postgres(url, { pureFunctions }))",
        ]);
        assert.deepEqual(await linesOf("remote", []), [
          "remote_things  whole table, a foreign table: livecmd is never told of its changes",
        ]);
      } finally {
        await app.close();
      }
    });
  },
);

function asRole(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  return parsed.toString();
}
