import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import {
  connectionProblem,
  handleWhere,
} from "../../packages/livecmd/runtime/db/postgres/connectionProblem.ts";

const saved = { ...process.env };
afterEach(() => {
  for (const name of ["DATABASE_URL", "PGHOST", "PGPORT"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function environment(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

describe("where a pg.Pool or pg.Client the app gave connects, as its options say", () => {
  const cases: [
    rule: string,
    options: Parameters<typeof handleWhere>[1],
    env: Record<string, string | undefined>,
    expected: string,
  ][] = [
    [
      "a connection string, its password hidden",
      { connectionString: "postgres://me:secret@db:5433/app" },
      {},
      "postgres://me:***@db:5433/app (the pg.Pool given)",
    ],
    [
      "host, port and database",
      { host: "db", port: 5433, database: "app" },
      {},
      "db:5433/app (the pg.Pool given)",
    ],
    [
      "nothing named: PGHOST and PGPORT, as node-postgres reads them",
      {},
      { PGHOST: "pg.internal", PGPORT: "6432" },
      "pg.internal:6432 (the pg.Pool given)",
    ],
    [
      "nothing named, no PGHOST: localhost:5432",
      undefined,
      { PGHOST: undefined, PGPORT: undefined },
      "localhost:5432 (the pg.Pool given)",
    ],
  ];
  for (const [rule, options, env, expected] of cases)
    test(rule, () => {
      environment(env);
      assert.equal(handleWhere("pg.Pool", options), expected);
    });
});

describe("a failed first connection says what to fix, and that DATABASE_URL is missing where it is", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  const login = Object.assign(new Error('password authentication failed for user "me"'), {
    code: "28P01",
  });
  const cases: [rule: string, error: Error, url: string | undefined, expected: string][] = [
    [
      "with DATABASE_URL set, it is what to fix",
      refused,
      "postgres://x/y",
      "livecmd: cannot connect to PostgreSQL at db:5432 (the pg.Pool given): nothing listens there (ECONNREFUSED); start the server or fix DATABASE_URL",
    ],
    [
      "without it, the URL or pool given, and that the process has none (a host passes only the variables its config names)",
      refused,
      undefined,
      "livecmd: cannot connect to PostgreSQL at db:5432 (the pg.Pool given): nothing listens there (ECONNREFUSED); start the server or fix the URL or pool given (DATABASE_URL is not set in this process's environment, and a host that starts the server passes only the variables its config names)",
    ],
    [
      "a refused login names the user or password",
      login,
      "postgres://x/y",
      'livecmd: PostgreSQL at db:5432 (the pg.Pool given) refused the login: password authentication failed for user "me"; fix the user or password in DATABASE_URL',
    ],
  ];
  for (const [rule, error, url, expected] of cases)
    test(rule, () => {
      environment({ DATABASE_URL: url });
      assert.equal(connectionProblem(error, "db:5432 (the pg.Pool given)"), expected);
    });
});
