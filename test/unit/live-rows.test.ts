import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { command, defineApp, type App } from "../../packages/livecmd/runtime/index.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import {
  compareMatchings,
  queryCommand,
  watch,
  writeBatches,
  type Oracle,
  type Reruns,
  type Statement,
  type WriteBatch,
} from "../helpers/differentialLive.ts";
import {
  SQLITE_DRIVERS,
  type SqliteDriver,
  type TestConnection,
} from "../helpers/sqliteDrivers.ts";

const SCHEMA = /* sql */ `
  CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, code TEXT UNIQUE, score NUMERIC);
  CREATE INDEX parent_by_name ON parent (name);
  CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE, tag TEXT);
  CREATE INDEX child_by_parent ON child (parent_id);
  CREATE TABLE pair (a INTEGER, b TEXT, v INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID;
  CREATE TRIGGER child_counts AFTER INSERT ON child BEGIN
    UPDATE pair SET v = v + 1 WHERE a = new.parent_id;
  END;
  CREATE VIEW named AS SELECT id, name FROM parent WHERE name IS NOT NULL;
`;

/**
 * Reads of every shape the matcher meets: key lookups (rowid, index, NOCASE, WITHOUT ROWID, IN,
 * joins), keys looked up off other rows (a foreign key followed, `IN (SELECT ...)`, a correlated
 * subquery), filters of each form (comparisons, ranges, BETWEEN, IN, IS NULL, LIKE, AND and OR,
 * under NUMERIC and TEXT affinity and NOCASE), pages (`ORDER BY ... LIMIT`, with OFFSET and WHERE,
 * both ways) and whole-table ones.
 */
const READS: readonly [sql: string, arity: number][] = [
  ["SELECT * FROM parent WHERE id = ?", 1],
  ["SELECT * FROM parent WHERE name = ?", 1],
  ["SELECT * FROM parent WHERE code = ?", 1],
  ["SELECT * FROM parent WHERE id IN (?, ?, 3)", 2],
  ["SELECT * FROM child WHERE parent_id = ? ORDER BY id", 1],
  [
    "SELECT p.id, COUNT(c.id) AS n FROM parent p LEFT JOIN child c ON c.parent_id = p.id WHERE p.id = ? GROUP BY p.id",
    1,
  ],
  ["SELECT * FROM pair WHERE a = ? ORDER BY b", 1],
  ["SELECT * FROM parent WHERE name LIKE ?", 1],
  ["SELECT * FROM child WHERE id = (SELECT max(id) FROM child WHERE parent_id = ?)", 1],
  ["SELECT count(*) AS n FROM parent", 0],
  ["SELECT * FROM named WHERE id = ?", 1],
  ["WITH mine AS (SELECT * FROM child WHERE parent_id = ?) SELECT count(*) AS n FROM mine", 1],
  ["SELECT key, value FROM parent, json_each(json_array(parent.name)) WHERE parent.id = ?", 1],
  ["SELECT * FROM parent WHERE score = ?", 1],
  ["SELECT * FROM parent WHERE name BETWEEN ? AND ? ORDER BY name", 2],
  ["SELECT * FROM child WHERE parent_id >= ? AND parent_id <= ?", 2],
  ["SELECT * FROM parent WHERE id BETWEEN ? AND ?", 2],
  [
    "SELECT c.id, c.tag, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE c.tag = ?",
    1,
  ],
  [
    "SELECT c.id, p.name, p.score FROM child c JOIN parent p ON p.id = c.parent_id WHERE c.parent_id = ?",
    1,
  ],
  [
    "SELECT c.tag, p.name FROM child c LEFT JOIN parent p ON p.id = c.parent_id WHERE c.tag <> ?",
    1,
  ],
  ["SELECT * FROM parent WHERE id IN (SELECT parent_id FROM child WHERE tag = ?) ORDER BY id", 1],
  [
    "SELECT p.id, (SELECT count(*) FROM child c WHERE c.parent_id = p.id) AS n FROM parent p WHERE p.score > ?",
    1,
  ],
  ["SELECT * FROM parent WHERE score > ?", 1],
  ["SELECT * FROM parent WHERE score <= ? ORDER BY id", 1],
  ["SELECT * FROM parent WHERE score BETWEEN ? AND ?", 2],
  ["SELECT * FROM parent WHERE name > ? ORDER BY id", 1],
  ["SELECT * FROM parent WHERE code IS NULL", 0],
  ["SELECT * FROM child WHERE tag IS ? ORDER BY id", 1],
  ["SELECT * FROM child WHERE tag IN (?, 'u') ORDER BY id", 1],
  ["SELECT * FROM child WHERE tag NOT IN (?, 't') ORDER BY id", 1],
  ["SELECT * FROM child WHERE tag LIKE ? ESCAPE '!' ORDER BY id", 1],
  ["SELECT * FROM parent WHERE score >= ? OR code = ? ORDER BY id", 2],
  ["SELECT * FROM parent WHERE id > ? AND id < ?", 2],
  ["SELECT * FROM pair WHERE b > ? AND v < ? ORDER BY a, b", 2],
  ["SELECT * FROM parent WHERE name = ? COLLATE BINARY OR score = ?", 2],
  ["SELECT c.id, p.id AS p FROM child c JOIN parent p ON p.score = c.parent_id WHERE c.tag = ?", 1],
  ["SELECT a.id, b.id AS b FROM parent a JOIN parent b ON b.id = a.score WHERE a.code = ?", 1],
  [
    "SELECT p.id, (SELECT count(*) FROM child c WHERE c.parent_id = p.id) AS n FROM parent p WHERE p.name > ?",
    1,
  ],
  [
    "SELECT c.id, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE c.parent_id >= ? AND c.parent_id < ?",
    2,
  ],
  // Pages (from FIRST_PAGE on): read up to the last returned row's key when full (ties, NULLs first ascending, NOCASE).
  ["SELECT name, id FROM parent ORDER BY name LIMIT 2", 0],
  ["SELECT id, name FROM parent ORDER BY id DESC LIMIT 2", 0],
  ["SELECT id, score, name FROM parent WHERE score >= ? ORDER BY name DESC LIMIT 2 OFFSET 1", 1],
  ["SELECT id, parent_id, tag FROM child ORDER BY parent_id LIMIT 2", 0],
  ["SELECT id, tag FROM child WHERE tag <> ? ORDER BY parent_id DESC LIMIT 1", 1],
  ["SELECT id FROM parent ORDER BY name LIMIT 2", 0],
];

const FIRST_PAGE = READS.findIndex(([sql]) => sql.includes("LIMIT"));

const WRITES: readonly [sql: string, arity: number][] = [
  ["INSERT INTO parent (id, name, code, score) VALUES (?, ?, ?, ?)", 4],
  ["UPDATE parent SET name = ? WHERE id = ?", 2],
  ["UPDATE parent SET id = ? WHERE id = ?", 2],
  ["UPDATE parent SET score = ? WHERE code = ?", 2],
  ["DELETE FROM parent WHERE id = ?", 1],
  ["INSERT INTO child (parent_id, tag) VALUES (?, ?)", 2],
  ["UPDATE child SET parent_id = ? WHERE id = ?", 2],
  ["DELETE FROM child WHERE id = ?", 1],
  ["INSERT INTO pair (a, b, v) VALUES (?, ?, 0) ON CONFLICT (a, b) DO UPDATE SET v = v + 1", 2],
  ["UPDATE child SET tag = ? WHERE id = ?", 2],
  ["UPDATE parent SET code = ?, score = ? WHERE id = ?", 3],
];

/** Values of several storage classes that SQLite may or may not hold equal: 3, 3.0, '3', 3n, 'a', 'A'. */
const value = fc.oneof(
  fc.constantFrom(1, 2, 3, 3.0, 4, 1.5),
  fc.constantFrom(1n, 3n),
  fc.constantFrom("1", "3", " 3", "a", "A", "b", "c%", "x", "t", "u", "a%", "%!%"),
  fc.constant(null),
);
const statement = (table: readonly [string, number][]) =>
  fc
    .integer({ min: 0, max: table.length - 1 })
    .chain((i) =>
      fc.tuple(
        fc.constant(i),
        fc.array(value, { minLength: table[i]![1], maxLength: table[i]![1] }),
      ),
    );
const write = writeBatches(statement(WRITES), { elsewhere: true });
const pageRead = statement(READS).map(([i, params]): Statement => [
  FIRST_PAGE + (i % (READS.length - FIRST_PAGE)),
  Array.from(
    { length: READS[FIRST_PAGE + (i % (READS.length - FIRST_PAGE))]![1] },
    (_, n) => params[n] ?? 1,
  ),
]);

const query = queryCommand(READS);
const whoami = command({ live: true }, async (ctx, id: number) => ({
  who: ctx.auth?.clientId,
  row: await ctx.db.get("SELECT * FROM parent WHERE id = ?", id),
}));

/** A connection to `file` (a fresh database in memory unless given), created with the schema and rows when new. */
function connect(driver: SqliteDriver, file = ":memory:"): TestConnection {
  const connection = driver.open(file);
  connection.exec("PRAGMA foreign_keys = ON");
  connection.exec("PRAGMA synchronous = OFF"); // a test's throwaway file: no fsync per commit
  if (connection.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'parent'").get())
    return connection;
  connection.exec(SCHEMA);
  connection.exec(`INSERT INTO parent VALUES (1, 'a', 'x1', 1), (2, 'B', 'x2', 2), (3, 'c', 'x3', 3);
    INSERT INTO child (parent_id, tag) VALUES (1, 't'), (2, 't'), (3, 'u');
    INSERT INTO pair VALUES (1, 'a', 0), (3, 'b', 0);`);
  return connection;
}

function exampleApp(driver: SqliteDriver, file?: string): App {
  return defineApp({
    name: "rows",
    commands: { query, whoami },
    agent: { grant: [query, whoami] },
    database: () => connect(driver, file),
  });
}

/** Another connection to the app's file: it reads each watched read's result and writes as another process would. */
function otherConnection(connection: TestConnection, reads: readonly Statement[]): Oracle {
  return {
    results: () =>
      reads.map(([i, params]) => JSON.stringify(connection.prepare(READS[i]![0]).all(...params))),
    writeElsewhere({ statements, rollback }) {
      connection.exec("BEGIN");
      for (const [i, params] of statements) {
        // A savepoint, rolled back alone when the statement fails (a constraint), as the app's are.
        connection.exec("SAVEPOINT one");
        try {
          connection.prepare(WRITES[i]![0]).run(...params);
        } catch {
          connection.exec("ROLLBACK TO one");
        }
        connection.exec("RELEASE one");
      }
      connection.exec(rollback ? "ROLLBACK" : "COMMIT");
    },
  };
}

const principal = (clientId: string): AuthInfo => ({ token: clientId, clientId, scopes: [] });

for (const driver of SQLITE_DRIVERS)
  describe(`live rows on ${driver.name}`, { skip: driver.skip }, () => {
    test("binds a JS number as a real, even 7, and a bigint as an integer: the rule key encoding assumes", () => {
      const connection = connect(driver);
      const types = connection
        .prepare("SELECT typeof(?) AS a, typeof(?) AS b, typeof(?) AS c")
        .get(7, 1.5, 7n);
      assert.deepEqual({ ...(types as object) }, { a: "real", b: "real", c: "integer" });
      connection.close();
    });

    /** A property's run on a fresh database file, written by the app and by another connection. */
    const onFreshFile = (folder: string, reruns: Reruns) => {
      let run = 0;
      return async (reads: Statement[], writes: WriteBatch[]) => {
        const file = path.join(folder, `${(run += 1)}.sqlite`);
        const other = connect(driver, file);
        const app = exampleApp(driver, file);
        await compareMatchings(app, WRITES, reads, writes, reruns, otherConnection(other, reads));
        await app.close();
        other.close();
      };
    };

    test("live rows: row-level matching notifies what table-level matching does, and exactly the reads whose results a write changed, whoever wrote (random reads and writes)", async () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-rows-"));
      const reruns: Reruns = { rows: 0, tables: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.array(statement(READS), { minLength: 1, maxLength: 8 }),
          fc.array(write, { minLength: 1, maxLength: 6 }),
          onFreshFile(folder, reruns),
        ),
        { numRuns: 150, seed: 19, interruptAfterTimeLimit: 60_000 },
      );
      rmSync(folder, { recursive: true, force: true });
      assert.ok(
        reruns.rows < reruns.tables / 2,
        `row matching re-ran ${reruns.rows} times, table matching ${reruns.tables}: keys and filters were not exercised`,
      );
    });

    test("live rows: a page is read up to its last row's key, and a write past it re-runs nothing, each notified exactly (random pages and writes)", async () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-pages-"));
      const reruns: Reruns = { rows: 0, tables: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.array(pageRead, { minLength: 1, maxLength: 6 }),
          fc.array(write, { minLength: 1, maxLength: 8 }),
          onFreshFile(folder, reruns),
        ),
        { numRuns: 150, seed: 34, interruptAfterTimeLimit: 60_000 },
      );
      rmSync(folder, { recursive: true, force: true });
      assert.ok(
        reruns.rows < reruns.tables,
        `row matching re-ran pages ${reruns.rows} times, table matching ${reruns.tables}: no bound was exercised`,
      );
    });

    test("live rows: a page's reads: bounded by its last row when full, every matching row when not, whole where its key is not returned", async () => {
      const app = exampleApp(driver);
      const { live, received } = await watch(app, "rows", [
        [FIRST_PAGE, []], // parent ORDER BY name LIMIT 2: 'a', 'B' -> name <= 'b' COLLATE NOCASE
        [FIRST_PAGE + 1, []], // parent ORDER BY id DESC LIMIT 2: 3, 2 -> rowid >= 2
      ]);
      await app.db.run("INSERT INTO parent (id, name) VALUES (10, 'z')"); // past the first page, not the second's order
      await live.settled();
      assert.equal(live.stats().reruns, 1);
      assert.deepEqual(received, [`q://${FIRST_PAGE + 1}/[]`]);
      await app.db.run("UPDATE parent SET score = 9 WHERE id = 1"); // within the first page, past the second
      await live.settled();
      assert.equal(live.stats().reruns, 2);
      // A tie with the first page's last row counts; id 0 is past the second's (now 10, 3).
      await app.db.run("INSERT INTO parent (id, name) VALUES (0, 'b')");
      await live.settled();
      assert.equal(live.stats().reruns, 3);
      await app.close();
    });

    test("live rows: a write to a row nobody watches re-runs nothing; to a watched row, only its readers", async () => {
      const app = exampleApp(driver);
      const { live, received } = await watch(app, "rows", [
        [0, [1]],
        [0, [2]],
        [4, [2]],
      ]);
      await app.db.run("UPDATE parent SET name = 'z' WHERE id = 3");
      await live.settled();
      assert.deepEqual(live.stats().reruns, 0);
      await app.db.run("DELETE FROM parent WHERE id = 2"); // cascades to child 2
      await live.settled();
      assert.equal(live.stats().reruns, 2);
      assert.deepEqual(received.sort(), ["q://0/[2]", "q://4/[2]"]);
      await app.close();
    });

    test("live rows: principals watching a run that never reads ctx.auth share one group and one re-run", async () => {
      const app = exampleApp(driver);
      const live = new LiveRegistry(app, { onError: () => {} });
      for (const who of ["ann", "bob", "cat"])
        await live.add("query", [0, [1]], { uri: "q://0/1", notify: () => {} }, principal(who));
      assert.equal(live.stats().groups, 1);
      await app.db.run("UPDATE parent SET name = 'd' WHERE id = 1");
      await live.settled();
      assert.deepEqual(
        { ...live.stats(), notifications: undefined },
        {
          subscriptions: 3,
          groups: 1,
          reruns: 1,
          notifications: undefined,
        },
      );
      await app.close();
    });

    test("live rows: a run that reads ctx.auth keeps one group per principal, each told its own change", async () => {
      const app = exampleApp(driver);
      const live = new LiveRegistry(app, { onError: () => {} });
      const told: string[] = [];
      for (const who of ["ann", "bob"])
        await live.add(
          "whoami",
          [1],
          { uri: `w://${who}`, notify: (uri) => told.push(uri) },
          principal(who),
        );
      assert.equal(live.stats().groups, 2);
      await app.db.run("UPDATE parent SET name = 'e' WHERE id = 1");
      await live.settled();
      assert.equal(live.stats().reruns, 2);
      assert.deepEqual(told.sort(), ["w://ann", "w://bob"]);
      await app.close();
    });
  });
