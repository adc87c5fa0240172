import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import { root, run } from "../helpers/cli.ts";
import { emptyDatabase, postgresServer } from "../helpers/postgres.ts";

const server = postgresServer();

/**
 * `npm start`, as the README's quick start runs it, in an environment of the test's making. Its
 * prestart build is left out (`--ignore-scripts` skips pre- and post-scripts only): pretest
 * built dist/ already, and rebuilding it would rewrite it under the feet of tests running beside.
 */
async function npmStart(env: NodeJS.ProcessEnv) {
  const started = await run("npm", ["start", "--ignore-scripts"], {
    cwd: root,
    env: Object.fromEntries(
      Object.entries({ ...process.env, DATABASE_URL: undefined, ...env }).filter(
        ([, value]) => value !== undefined,
      ),
    ),
    timeoutMs: 120_000,
  });
  assert.equal(started.code, 0, started.stdout + started.stderr);
  assert.match(started.stdout, /<- notifications\/resources\/updated app:\/\/customers_show\/1/);
  assert.match(started.stdout, /no notification within 500 ms: neither watched result changed/);
  // The watch tool: the first call answers at once, the next when customer 1 is renamed back.
  for (const name of ["Ada King", "Ada Lovelace"])
    assert.match(
      started.stdout,
      new RegExp(
        `\\n {2}-> changed after \\d+ ms: app://customers_show/1 "${name}", version \\S+\\n`,
      ),
    );
  return started.stdout;
}

describe("the quick start's demo (npm start)", () => {
  it("runs on SQLite", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "livecmd-demo-")), "demo.sqlite");
    const stdout = await npmStart({ LIVECMD_EXAMPLE_DB: file });
    assert.match(stdout, new RegExp(`^database: SQLite, ${file}$`, "m"));
  });

  it(
    "runs on PostgreSQL when DATABASE_URL is set: the server it starts gets the environment",
    { skip: server.skip },
    async () => {
      const url = await emptyDatabase(server.url!);
      const stdout = await npmStart({ DATABASE_URL: url, LIVECMD_EXAMPLE_DB: undefined });
      assert.match(stdout, /^database: PostgreSQL, at DATABASE_URL$/m);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT name FROM customers WHERE id = 1");
        assert.equal(rows.length, 1, "the example's schema was set up in DATABASE_URL's database");
      } finally {
        await client.end();
      }
    },
  );
});
