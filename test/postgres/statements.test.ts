import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { numberedPlaceholders } from "../../packages/livecmd/runtime/db/postgres/placeholders.ts";
import { INSTALL_CHANGE_FEED } from "../../packages/livecmd/runtime/db/postgres/changes/feedInstall.ts";
import { explainTables } from "../../packages/livecmd/runtime/db/postgres/plan/planTables.ts";
import { livecmd } from "../helpers/cli.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

test("PostgreSQL placeholders: each ? outside quotes and comments becomes $n; $n statements are left alone", () => {
  const cases: [string, string][] = [
    ["SELECT ? , ?", "SELECT $1 , $2"],
    ["SELECT '?', ? -- ?\n, ?", "SELECT '?', $1 -- ?\n, $2"],
    [`SELECT "a?" FROM t WHERE x = ? /* ? */`, `SELECT "a?" FROM t WHERE x = $1 /* ? */`],
    ["SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"],
    [String.raw`SELECT E'\' ?', ?`, String.raw`SELECT E'\' ?', $1`],
    ["SELECT $$ ? $$, $tag$ ? $tag$, ?", "SELECT $$ ? $$, $tag$ ? $tag$, $1"],
    ["SELECT data ? 'key' FROM t WHERE id = $1", "SELECT data ? 'key' FROM t WHERE id = $1"],
    ["SELECT 1", "SELECT 1"],
  ];
  for (const [sql, expected] of cases) assert.equal(numberedPlaceholders(sql), expected, sql);
});

describe("PostgreSQL: the tables a statement reads, from its plan", { skip: server.skip }, () => {
  let url: string;
  let client: pg.Client;

  before(async () => {
    url = await emptyDatabase(server.url!);
    psql(
      url,
      `CREATE TABLE a (id integer PRIMARY KEY, n integer);
       CREATE TABLE b (id integer PRIMARY KEY, a_id integer);
       CREATE TABLE c (id integer PRIMARY KEY);
       CREATE VIEW ab AS SELECT a.id, b.id AS b_id FROM a JOIN b ON b.a_id = a.id;
       CREATE FUNCTION inlined(x integer) RETURNS SETOF integer LANGUAGE sql STABLE AS 'SELECT id FROM c WHERE id > x';`,
    );
    psql(url, INSTALL_CHANGE_FEED); // explainTables names tables as the feed does
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });

  after(() => client?.end());

  /** The tables read and written (how each is read, by key or whole, is keyed-reads.test.ts's). */
  const explain = async (sql: string) => {
    const access = await explainTables(client as never, sql);
    return "reads" in access
      ? { ...access, reads: access.reads.map(({ table }) => table) }
      : access;
  };

  test("joins, views, subqueries, CTEs and an inlined SQL function name their base tables", async () => {
    assert.deepEqual(await explain("SELECT * FROM ab"), { reads: ["a", "b"], writes: [] });
    assert.deepEqual(
      await explain(
        "WITH big AS (SELECT id FROM a WHERE n > $1) SELECT * FROM big WHERE id IN (SELECT a_id FROM b)",
      ),
      { reads: ["a", "b"], writes: [] },
    );
    assert.deepEqual(await explain("SELECT * FROM inlined($1)"), { reads: ["c"], writes: [] });
  });

  test("the plan is the generic one: a branch some values would prune is still there", async () => {
    assert.deepEqual(
      await explain("SELECT id FROM a WHERE $1::integer = 1 AND EXISTS (SELECT 1 FROM c)"),
      { reads: ["a", "c"], writes: [] },
    );
  });

  test("a write names its table; with RETURNING and a read of another table too", async () => {
    assert.deepEqual(
      await explain("INSERT INTO b (id, a_id) SELECT id, id FROM a WHERE id = $1 RETURNING id"),
      {
        reads: ["a"],
        writes: ["b"],
      },
    );
    assert.deepEqual(await explain("DELETE FROM c WHERE id = $1"), { reads: ["c"], writes: ["c"] });
  });

  test("a rule's actions are plans of their own: a write through a rule names every table it writes", async () => {
    psql(
      url,
      "CREATE TABLE c_log (id integer); CREATE RULE c_logged AS ON INSERT TO c DO ALSO INSERT INTO c_log VALUES (NEW.id)",
    );
    assert.deepEqual(await explain("INSERT INTO c VALUES ($1)"), {
      reads: [],
      writes: ["c", "c_log"],
    });
    psql(url, "DROP RULE c_logged ON c");
  });

  test("a statement the plan cannot be taken of leaves nothing prepared behind", async () => {
    await assert.rejects(explain("SELECT nope FROM a"), /column "nope" does not exist/);
    assert.deepEqual(await explain("SELECT id FROM c"), { reads: ["c"], writes: [] });
  });
});

describe("PostgreSQL: bad input is one line that says what to do", { skip: server.skip }, () => {
  const reader = (database: ReturnType<typeof postgres>) =>
    defineApp({
      name: "x",
      commands: { one: command({ live: true }, async (ctx) => ctx.db.get("SELECT 1 AS one")) },
      agent: { grant: [] },
      database,
    });

  test("a setUp that throws fails the first statement, saying setUp failed and that processes starting together each run it", async () => {
    const url = await emptyDatabase(server.url!);
    const twice = reader(
      postgres(url, {
        setUp: async (db) => {
          await db.run("CREATE TABLE notes (id integer)");
          await db.run("CREATE TABLE notes (id integer)");
        },
      }),
    );
    await assert.rejects(twice.run("one", [], { origin: "app" }), (error: Error) =>
      /^postgres\(\{ setUp \}\) failed: relation "notes" already exists; processes that start together each run setUp, so make it safe to run at once/.test(
        error.message,
      ),
    );
    await twice.close();
  });

  test("a URL that is not postgres:// is refused when the app is defined", () => {
    assert.throws(
      () => postgres("mysql://localhost/app"),
      /^LivecmdSetupError: livecmd: the PostgreSQL URL "mysql:\/\/localhost\/app" must look like postgres:\/\/user:password@host:5432\/database$/,
    );
  });

  test("no URL at all (DATABASE_URL unset) is refused when the app is defined, and so is a function that finds none", async () => {
    const message =
      "livecmd: postgres() was given no database: pass a postgres:// URL (is DATABASE_URL set?), a pg.Pool, a connected pg.Client, or a function that returns one";
    assert.throws(() => postgres(undefined as never), { message });
    const app = reader(postgres(async () => undefined as never));
    await assert.rejects(app.ready(), { message });
    await app.close();
  });

  test("pureFunctions names that are no function of the database are logged once the database is open", async () => {
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      "CREATE FUNCTION shout(t text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT upper(t)'",
    );
    const log: string[] = [];
    const app = reader(
      postgres(url, {
        pureFunctions: ["shout", "public.shout", "shout()", "nope"],
        log: (line) => log.push(line),
      }),
    );
    try {
      await app.ready();
      assert.deepEqual(log, [
        'livecmd: postgres(url, { pureFunctions }) names "shout()", which is no function of this database ("name" or "schema.name", no parentheses)',
        'livecmd: postgres(url, { pureFunctions }) names "nope", which is no function of this database ("name" or "schema.name", no parentheses)',
      ]);
    } finally {
      await app.close();
    }
  });

  test("pureFunctions that is not a list of names is refused when the app is defined", () => {
    assert.throws(
      () => postgres("postgres://localhost/app", { pureFunctions: "shout" as never }),
      /^LivecmdSetupError: livecmd: postgres\(url, \{ pureFunctions \}\) must be a list of function names \("name" or "schema.name"\), not "shout"$/,
    );
  });

  test("livecmd serve with a DATABASE_URL that is not postgres:// says so in one line, exit 2", async () => {
    const served = await livecmd(["serve", "--http", "0"], {
      DATABASE_URL: "postgress://localhost/app",
    });
    assert.equal(served.code, 2, served.stderr);
    assert.equal(
      served.stderr,
      'livecmd: the PostgreSQL URL "postgress://localhost/app" must look like postgres://user:password@host:5432/database\n',
    );
  });

  for (const [way, args] of [
    ["over stdio", ["serve"]],
    ["over HTTP", ["serve", "--http", "0"]],
  ] as const)
    test(`livecmd serve ${way} opens the database before it says it serves: a database that does not exist is one line, exit 2`, async () => {
      const missing = new URL(server.url!);
      missing.pathname = "/livecmd_no_such_database";
      const served = await livecmd([...args], { DATABASE_URL: missing.href });
      assert.equal(served.code, 2, served.stdout);
      assert.equal(served.stdout, "");
      assert.match(
        served.stderr,
        /^livecmd: app "app" cannot open its database: PostgreSQL at .*: database "livecmd_no_such_database" does not exist; create it \(createdb\) or fix the database name in DATABASE_URL\n$/,
      );
    });

  test("a server that is not there, and a database that does not exist, fail the first statement", async () => {
    const nowhere = reader(postgres("postgres://me:secret@127.0.0.1:1/app"));
    await assert.rejects(nowhere.run("one", [], { origin: "app" }), (error: Error) =>
      error.message.startsWith(
        "livecmd: cannot connect to PostgreSQL at postgres://me:***@127.0.0.1:1/app: nothing listens there (ECONNREFUSED); start the server or fix ",
      ),
    );
    await nowhere.close();
    const missing = new URL(server.url!);
    missing.pathname = "/no_such_database";
    const absent = reader(postgres(missing.toString()));
    await assert.rejects(
      absent.run("one", [], { origin: "app" }),
      /^Error: livecmd: PostgreSQL at postgres:\/\/.*: database "no_such_database" does not exist; create it \(createdb\) or fix the database name in /,
    );
    await absent.close();
  });
});
