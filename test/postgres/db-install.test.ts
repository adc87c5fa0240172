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

  test("uninstall removes what install made, the tables' replica identities given back; status says the mode and warns of a slot nobody reads", async () => {
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      `CREATE TABLE notes (id integer PRIMARY KEY);
       CREATE TABLE codes (code text NOT NULL, CONSTRAINT codes_code UNIQUE (code));
       ALTER TABLE codes REPLICA IDENTITY USING INDEX codes_code;
       CREATE TABLE logs (line text); ALTER TABLE logs REPLICA IDENTITY NOTHING`,
    );
    const identities = () =>
      psql(
        url,
        "SELECT string_agg(relname || ':' || relreplident::text, ',' ORDER BY relname) FROM pg_class WHERE relname IN ('notes', 'codes', 'logs')",
      );
    assert.equal(identities(), "codes:i,logs:n,notes:d");
    const logical = psql(url, "SHOW wal_level") === "logical";
    assert.equal((await livecmd(["db", "install", "--url", url])).code, 0);
    assert.equal(identities(), logical ? "codes:f,logs:f,notes:f" : "codes:i,logs:n,notes:d");

    const status = await livecmd(["db", "status", "--url", url]);
    const slot = psql(
      url,
      "SELECT 'livecmd_' || oid FROM pg_database WHERE datname = current_database()",
    );
    if (logical) {
      assert.equal(status.code, 1, status.stderr);
      assert.match(status.stdout, /^livecmd: postgres:\/\/.*: logical decoding installed\n/);
      assert.match(
        status.stdout,
        new RegExp(`\\nlivecmd: slot ${slot}: read by no process; .* of WAL kept, `),
      );
      assert.match(
        status.stdout,
        new RegExp(
          `\\nlivecmd: warning: slot ${slot} is read by nobody \\(no process serves this database\\) and keeps .* of WAL, up to max_slot_wal_keep_size = \\d+GB; .*run livecmd db uninstall if it no longer serves here\\n$`,
        ),
      );
    } else {
      assert.equal(status.code, 0, status.stderr);
      assert.match(
        status.stdout,
        /^livecmd: postgres:\/\/.*: triggers that NOTIFY installed\nlivecmd: a process starting with capture "auto" would use triggers: wal_level is replica.*\n$/,
      );
    }

    const removed = await livecmd(["db", "uninstall"], { DATABASE_URL: url });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(
      removed.stdout,
      logical
        ? new RegExp(
            `^livecmd: removed slot ${slot}, publication livecmd, schema livecmd from postgres://.*; 3 tables have the replica identity back that they had before\\n$`,
          )
        : /^livecmd: removed the triggers of 3 tables, schema livecmd from postgres:\/\/.*\n$/,
    );
    assert.equal(identities(), "codes:i,logs:n,notes:d");
    assert.equal(
      psql(
        url,
        `SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'livecmd') + (SELECT count(*) FROM pg_publication)
              + (SELECT count(*) FROM pg_replication_slots WHERE database = current_database())
              + (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'livecmd%') + (SELECT count(*) FROM pg_event_trigger)`,
      ),
      "0",
    );
    const again = await livecmd(["db", "uninstall", "--url", url]);
    assert.match(again.stdout, /^livecmd: nothing of livecmd's is installed on postgres:\/\/.*\n$/);
    const after = await livecmd(["db", "status", "--url", url]);
    assert.match(
      after.stdout,
      /^livecmd: postgres:\/\/.*: not installed \(a serving process installs it on start, as livecmd db install does\)\n/,
    );
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
