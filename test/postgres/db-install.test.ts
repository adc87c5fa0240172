import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { livecmd } from "../helpers/cli.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

describe("livecmd db install", { skip: server.skip }, () => {
  test("installs the change feed once: a second run finds every table watched already", async () => {
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      "CREATE TABLE notes (id integer PRIMARY KEY); CREATE SCHEMA crm; CREATE TABLE crm.leads (id integer)",
    );
    const logical = psql(url, "SHOW wal_level") === "logical";
    const first = await livecmd(["db", "install", "--url", url]);
    assert.equal(first.code, 0, first.stderr);
    const captured = logical
      ? "captured by logical decoding \\(wal_level = logical, and the role may replicate\\)"
      : "captured by triggers that NOTIFY: wal_level is replica";
    assert.match(
      first.stdout,
      new RegExp(
        `^livecmd: the change feed is installed on postgres://.*; 2 tables newly watched\\nlivecmd: PostgreSQL's changes are ${captured}.*\\n$`,
      ),
    );
    const second = await livecmd(["db", "install"], { DATABASE_URL: url });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /; 0 tables newly watched\n/);
    const watched = logical
      ? "SELECT string_agg(oid::regclass::text, ',' ORDER BY oid::regclass::text) FROM pg_class WHERE relreplident = 'f' AND relkind = 'r' AND relnamespace <> 'livecmd'::regnamespace AND relnamespace <> 'pg_catalog'::regnamespace"
      : "SELECT string_agg(tgrelid::regclass::text, ',' ORDER BY tgrelid::regclass::text) FROM pg_trigger WHERE tgname = 'livecmd_notify_update'";
    assert.equal(psql(url, watched), "crm.leads,notes");
  });

  test("without a database, with a URL that is not postgres://, or with nothing listening: one line, exit 2", async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [
        ["db", "install"],
        { DATABASE_URL: "" },
        /^livecmd: db install needs a PostgreSQL database: pass --url or set DATABASE_URL\n$/,
      ],
      [
        ["db", "install", "--url", "mysql://x/y"],
        {},
        /^livecmd: the PostgreSQL URL "mysql:\/\/x\/y" must look like postgres:\/\/user:password@host:5432\/database\n$/,
      ],
      [
        ["db", "install"],
        { DATABASE_URL: "postgres://me:secret@127.0.0.1:1/app" },
        /^livecmd: cannot connect to PostgreSQL at postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/app: nothing listens there \(ECONNREFUSED\); start the server or fix DATABASE_URL\n$/,
      ],
      [
        ["db", "install", "--url", "postgres://me:secret@127.0.0.1:1/app"],
        { DATABASE_URL: undefined },
        /^livecmd: cannot connect to PostgreSQL at postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/app: nothing listens there \(ECONNREFUSED\); start the server or fix the URL or pool given \(DATABASE_URL is not set in this process's environment/,
      ],
    ];
    for (const [args, env, expected] of cases) {
      const run = await livecmd(args, env);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, expected);
    }
  });
});
