import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { defineApp, type App } from "../../packages/livecmd/runtime/index.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import {
  compareMatchings,
  queryCommand,
  watch,
  writeBatches,
  type Reruns,
} from "../helpers/differentialLive.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import type { TableRead } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { wholeReasonText } from "../../packages/livecmd/runtime/db/wholeReason.ts";

const server = postgresServer();

/**
 * Keys of every kind the change feed carries (integer, bigint, varchar, uuid, text), columns
 * that never key (numeric, unindexed), a cascade on delete and on update of the key, an app
 * trigger, a view.
 */
const SCHEMA = /* sql */ `
  CREATE TABLE parent (id integer PRIMARY KEY, name text, code varchar(10) UNIQUE, ref uuid UNIQUE,
                       big bigint UNIQUE, score numeric, note text);
  CREATE INDEX parent_by_name ON parent (name);
  CREATE TABLE child (id serial PRIMARY KEY,
                      parent_id integer REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE, tag text);
  CREATE INDEX child_by_parent ON child (parent_id);
  CREATE TABLE pair (a integer, b text, v integer, PRIMARY KEY (a, b));
  CREATE FUNCTION child_counts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE pair SET v = v + 1 WHERE a = NEW.parent_id; RETURN NULL; END $$;
  CREATE TRIGGER child_counts AFTER INSERT ON child FOR EACH ROW EXECUTE FUNCTION child_counts();
  CREATE VIEW named AS SELECT id, name FROM parent WHERE name IS NOT NULL;
`;

const U1 = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const U2 = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
const BIG = 9007199254740993n;

/**
 * Filler rows, never written by the property (its keys are 1 to 4), so that the planner looks
 * parent and child up through their indexes; pair stays small, read by a filtered sequential scan.
 */
const FILLER = /* sql */ `
  INSERT INTO parent SELECT g, 'f' || g, 'f' || g, NULL, g, g, NULL FROM generate_series(100, 2000) g;
  INSERT INTO child SELECT g, g - 900, 'f' FROM generate_series(1000, 2900) g;
  ANALYZE;
`;

/** Every run starts from these rows (child ids from 1 again; child 1 is parent 2's, so ids of one do not stand for the other). */
const SEED = /* sql */ `
  DELETE FROM pair; DELETE FROM child WHERE id < 1000; DELETE FROM parent WHERE id < 100;
  ALTER SEQUENCE child_id_seq RESTART;
  INSERT INTO parent VALUES (1, 'a', 'x1', '${U1}', 1, 1, 'n'), (2, 'B', 'x2', NULL, ${BIG}, 2, 'n'),
                            (3, 'c', 'x3', '${U2}', 3, 3, 'n');
  INSERT INTO child (parent_id, tag) VALUES (2, 't'), (3, 't'), (1, 'u');
  INSERT INTO pair VALUES (1, 'a', 0), (3, 'b', 0);
`;

/** What a parameter may be, by the type of what it is compared with or written to. */
const VALUES = {
  // Mostly the ids the seed holds, so that reads and writes meet.
  int: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<unknown>(1, 2, 3) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(4, "3", "03", " 3", 3n, null) },
  ),
  text: fc.constantFrom<unknown>("a", "A", "B", "x1", "x2", "c%", "3", 3, null, "t", "u", "n"),
  uuid: fc.constantFrom<unknown>(U1, U1.toUpperCase(), U1.replaceAll("-", ""), U2, null),
  big: fc.constantFrom<unknown>(BIG, Number(BIG), String(BIG), 1n, 3, null),
  num: fc.constantFrom<unknown>(1, 2, "1.0", 3.5, null),
  ints: fc.constantFrom<unknown>("{1,3}", "{2,NULL}", "{}", "{ 1}", "{03}"),
};
type Kind = keyof typeof VALUES;

/**
 * Reads of every shape: key lookups (primary key, index, varchar, uuid, bigint, IN, ANY, OR,
 * joins, a view), keys looked up off other rows (a foreign key followed, `IN (SELECT ...)`, a
 * correlated subquery), filters of each form (comparisons of numeric, bigint and text, ranges,
 * BETWEEN, IN, NOT IN, IS NULL, LIKE, NOT, AND and OR), pages (`ORDER BY ... LIMIT`, with
 * OFFSET, WHERE and a LIMIT parameter, both ways, from FIRST_PAGE on) and whole-table ones.
 */
const READS: readonly [sql: string, params: readonly Kind[]][] = [
  ["SELECT * FROM parent WHERE id = ?", ["int"]],
  ["SELECT * FROM parent WHERE name = ?", ["text"]],
  ["SELECT * FROM parent WHERE code = ?", ["text"]],
  ["SELECT * FROM parent WHERE ref = ?", ["uuid"]],
  ["SELECT * FROM parent WHERE big = ?", ["big"]],
  ["SELECT * FROM parent WHERE id IN (?, ?, 3) ORDER BY id", ["int", "int"]],
  ["SELECT * FROM parent WHERE id = ANY (?) ORDER BY id", ["ints"]],
  ["SELECT * FROM parent WHERE id = ? OR id = ? ORDER BY id", ["int", "int"]],
  ["SELECT * FROM child WHERE parent_id = ? ORDER BY id", ["int"]],
  [
    "SELECT p.id, COUNT(c.id) AS n FROM parent p LEFT JOIN child c ON c.parent_id = p.id WHERE p.id = ? GROUP BY p.id",
    ["int"],
  ],
  ["SELECT c.tag, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE c.id = ?", ["int"]],
  [
    "SELECT * FROM parent p WHERE p.id = ? AND EXISTS (SELECT 1 FROM child c WHERE c.parent_id = p.id)",
    ["int"],
  ],
  ["SELECT * FROM pair WHERE a = ? ORDER BY b", ["int"]],
  ["SELECT * FROM parent WHERE name LIKE ? ORDER BY id", ["text"]],
  ["SELECT * FROM child WHERE id = (SELECT max(id) FROM child WHERE parent_id = ?)", ["int"]],
  // PostgreSQL 15 prints the subquery's result as $1 too: "parent.id = $1" is not the parameter.
  ["SELECT * FROM parent WHERE id = (SELECT max(parent_id) FROM child WHERE id = ?)", ["int"]],
  ["SELECT count(*) AS n FROM parent", []],
  ["SELECT * FROM named WHERE id = ?", ["int"]],
  [
    "WITH mine AS (SELECT * FROM child WHERE parent_id = ?) SELECT count(*) AS n FROM mine",
    ["int"],
  ],
  ["SELECT * FROM parent WHERE score = ? ORDER BY id", ["num"]],
  [
    "SELECT c.id, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE c.tag = ? ORDER BY c.id",
    ["text"],
  ],
  [
    "SELECT * FROM parent WHERE id IN (SELECT parent_id FROM child WHERE tag = ?) ORDER BY id",
    ["text"],
  ],
  [
    "SELECT p.id, (SELECT count(*) FROM child c WHERE c.parent_id = p.id) AS n FROM parent p WHERE p.score > ? ORDER BY p.id",
    ["num"],
  ],
  ["SELECT * FROM parent WHERE score > ? ORDER BY id", ["num"]],
  ["SELECT * FROM parent WHERE score BETWEEN ? AND ? ORDER BY id", ["num", "num"]],
  ["SELECT * FROM parent WHERE big < ? ORDER BY id", ["big"]],
  ["SELECT * FROM parent WHERE note IS NULL ORDER BY id", []],
  ["SELECT * FROM child WHERE tag <> ? ORDER BY id", ["text"]],
  ["SELECT * FROM child WHERE tag IN (?, 'u') ORDER BY id", ["text"]],
  ["SELECT * FROM child WHERE tag NOT IN (?, 't') ORDER BY id", ["text"]],
  ["SELECT * FROM parent WHERE name > ? ORDER BY id", ["text"]],
  ["SELECT * FROM parent WHERE score >= ? OR code = ? ORDER BY id", ["num", "text"]],
  ["SELECT * FROM parent WHERE NOT (score < ?) ORDER BY id", ["num"]],
  ["SELECT * FROM pair WHERE b > ? AND v < ? ORDER BY a, b", ["text", "int"]],
  [
    "SELECT c.id, p.id AS p FROM child c JOIN parent p ON p.big = c.parent_id WHERE c.tag = ? ORDER BY 1, 2",
    ["text"],
  ],
  [
    "SELECT a.id, b.id AS b FROM parent a JOIN parent b ON b.id = a.big WHERE a.code = ? ORDER BY 1, 2",
    ["text"],
  ],
  [
    "SELECT p.id FROM parent p WHERE NOT EXISTS (SELECT 1 FROM child c WHERE c.parent_id = p.id) ORDER BY 1",
    [],
  ],
  [
    "SELECT c.id, p.name FROM parent p JOIN child c ON c.parent_id = p.id WHERE p.score > ? ORDER BY c.id",
    ["num"],
  ],
  [
    "SELECT c.id, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE c.parent_id >= ? ORDER BY c.id",
    ["int"],
  ],
  // Pages: read up to the last returned row's key when full (ties; NULLs last ascending, first descending).
  ["SELECT name, id FROM parent ORDER BY name LIMIT 2", []],
  ["SELECT id, name FROM parent ORDER BY id LIMIT 2", []],
  ["SELECT name, id FROM parent ORDER BY name DESC LIMIT 2", []],
  [
    "SELECT id, score, name FROM parent WHERE score >= ? ORDER BY name DESC LIMIT 2 OFFSET 1",
    ["num"],
  ],
  ["SELECT id, parent_id, tag FROM child ORDER BY parent_id LIMIT 2", []],
  ["SELECT id, tag, parent_id FROM child WHERE tag <> ? ORDER BY parent_id LIMIT 3", ["text"]],
  ["SELECT id, code FROM parent WHERE code > ? ORDER BY code LIMIT ?", ["text", "int"]],
  ["SELECT id FROM parent ORDER BY name LIMIT 2", []],
];

const FIRST_PAGE = READS.findIndex(([sql]) => sql.includes("LIMIT"));

const WRITES: readonly [sql: string, params: readonly Kind[]][] = [
  [
    "INSERT INTO parent (id, name, code, ref, big, score) VALUES (?, ?, ?, ?, ?, ?)",
    ["int", "text", "text", "uuid", "big", "num"],
  ],
  ["UPDATE parent SET name = ? WHERE id = ?", ["text", "int"]],
  ["UPDATE parent SET id = ? WHERE id = ?", ["int", "int"]],
  ["UPDATE parent SET ref = ?, big = ? WHERE code = ?", ["uuid", "big", "text"]],
  ["UPDATE parent SET code = ? WHERE id = ?", ["text", "int"]],
  ["UPDATE parent SET score = ?, note = 'w' WHERE code = ?", ["num", "text"]],
  ["DELETE FROM parent WHERE id = ?", ["int"]],
  ["INSERT INTO child (parent_id, tag) VALUES (?, ?)", ["int", "text"]],
  ["UPDATE child SET parent_id = ? WHERE id = ?", ["int", "int"]],
  ["DELETE FROM child WHERE id = ?", ["int"]],
  [
    "INSERT INTO pair (a, b, v) VALUES (?, ?, 0) ON CONFLICT (a, b) DO UPDATE SET v = pair.v + 1",
    ["int", "text"],
  ],
  ["UPDATE child SET tag = ? WHERE id = ?", ["text", "int"]],
  ["UPDATE parent SET note = ?, score = ? WHERE id = ?", ["text", "num", "int"]],
];

const statement = (table: readonly [string, readonly Kind[]][]) =>
  fc
    .integer({ min: 0, max: table.length - 1 })
    .chain((i) => fc.tuple(fc.constant(i), fc.tuple(...table[i]![1].map((kind) => VALUES[kind]))));
const write = writeBatches(statement(WRITES));
const pageRead = fc
  .integer({ min: FIRST_PAGE, max: READS.length - 1 })
  .chain((i) => fc.tuple(fc.constant(i), fc.tuple(...READS[i]![1].map((kind) => VALUES[kind]))));

const query = queryCommand(READS);

describe("PostgreSQL: row-level live matching", { skip: server.skip }, () => {
  let url: string;
  let app: App;

  before(async () => {
    url = await emptyDatabase(server.url!);
    psql(url, SCHEMA + FILLER);
    app = defineApp({
      name: "rows",
      commands: { query },
      agent: { grant: [query] },
      database: postgres(url),
    });
  });
  after(() => app?.close());

  test("row-level matching notifies exactly what table-level matching notifies (random reads and writes)", async () => {
    const reruns: Reruns = { rows: 0, tables: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(statement(READS), { minLength: 3, maxLength: 12 }),
        fc.array(write, { minLength: 1, maxLength: 6 }),
        async (reads, writes) => {
          await app.db.run(SEED);
          await engineOf(app).changesCaughtUp();
          await compareMatchings(app, WRITES, reads, writes, reruns);
        },
      ),
      { numRuns: 100, seed: 19 },
    );
    assert.ok(
      reruns.rows < reruns.tables,
      `row matching re-ran ${reruns.rows} times, table matching ${reruns.tables}: keyed reads were not exercised`,
    );
  });

  test("a page is read up to its last row's key, and a write past it re-runs nothing, each notified as table matching does (random pages and writes)", async () => {
    const reruns: Reruns = { rows: 0, tables: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(pageRead, { minLength: 1, maxLength: 6 }),
        fc.array(write, { minLength: 1, maxLength: 6 }),
        async (reads, writes) => {
          await app.db.run(SEED);
          await engineOf(app).changesCaughtUp();
          await compareMatchings(app, WRITES, reads, writes, reruns);
        },
      ),
      { numRuns: 100, seed: 34 },
    );
    assert.ok(
      reruns.rows < reruns.tables,
      `row matching re-ran pages ${reruns.rows} times, table matching ${reruns.tables}: no bound was exercised`,
    );
  });

  test("a page's reads: bounded by its last row when full, its filter when not, whole with the page's reason where it cannot be bounded", async () => {
    await app.db.run(SEED);
    const cases: [sql: string, params: unknown[], read: string][] = [
      // 'B' < 'a' under C: the last row is 'a'.
      ["SELECT name, id FROM parent ORDER BY name LIMIT 2", [], "name <= 'a'"],
      ["SELECT id, name FROM parent ORDER BY id DESC LIMIT 2", [], "id >= 1999 OR id IS NULL"],
      [
        "SELECT name, id FROM parent ORDER BY name DESC LIMIT 2",
        [],
        "name >= 'f998' OR name IS NULL",
      ],
      [
        "SELECT id, score, name FROM parent WHERE score >= ? ORDER BY name DESC LIMIT 2 OFFSET 1",
        [1],
        "(name >= 'f997' AND score >= 1) OR (NOT (name >= 'f997') AND name IS NULL AND score >= 1)",
      ],
      [
        "SELECT id, code FROM parent WHERE code > ? ORDER BY code LIMIT ?",
        ["x1", 1],
        "code <= 'x2' AND code > 'x1'",
      ],
      // Not full: every matching row.
      ["SELECT id, code FROM parent WHERE code > ? ORDER BY code LIMIT ?", ["x", 9], "code > 'x'"],
      ["SELECT id, name FROM parent WHERE score < 3 ORDER BY id LIMIT 5", [], "score < 3"],
      [
        "SELECT id FROM parent ORDER BY name LIMIT 2",
        [],
        "whole: a page (ORDER BY ... LIMIT) whose rows do not return the key it is sorted by (name)",
      ],
      [
        "SELECT id, score FROM parent ORDER BY score LIMIT 2",
        [],
        "whole: a page (ORDER BY ... LIMIT) sorted apart from any index: every row is read to sort them",
      ],
      ["SELECT id, name FROM parent ORDER BY id LIMIT 5000", [], "whole: a scan of every row"],
    ];
    for (const [sql, params, expected] of cases) {
      const reads: TableRead[] = [];
      await app.db
        .observedBy({
          read: (each) => reads.push(...each),
          narrowed: (told, each) =>
            told.forEach((read, i) => (reads[reads.indexOf(read)] = each[i]!)),
        })
        .all(sql, ...(params as never[]));
      const [read] = reads;
      const shown = read?.filter
        ? read.filter.text
        : `whole: ${read?.column === undefined && read?.reason ? wholeReasonText(read.reason) : "?"}`;
      assert.equal(shown, expected, sql);
    }
  });

  test("a write past a watched page's last row re-runs nothing; one at or before it re-runs that page", async () => {
    await app.db.run(SEED);
    await engineOf(app).changesCaughtUp();
    const { live, received } = await watch(app, "rows", [
      [FIRST_PAGE, []], // parent ORDER BY name LIMIT 2: 'B', 'a' -> name <= 'a'
      [FIRST_PAGE + 1, []], // parent ORDER BY id LIMIT 2: 1, 2 -> id <= 2
    ]);
    try {
      await app.db.run("INSERT INTO parent (id, name) VALUES (5, 'z')"); // past both
      await app.db.caughtUp();
      await live.settled();
      assert.equal(live.stats().reruns, 0);
      await app.db.run("UPDATE parent SET note = 'w' WHERE id = 2"); // within both
      await app.db.caughtUp();
      await live.settled();
      assert.equal(live.stats().reruns, 2);
      // A tie with the first page's last row counts (which 'a' comes first is the index's order of
      // tied rows, which the heap decides); id 6 is past the second's.
      await app.db.run("INSERT INTO parent (id, name) VALUES (6, 'a')");
      await app.db.caughtUp();
      await live.settled();
      assert.equal(live.stats().reruns, 3);
      await app.db.run("INSERT INTO parent (id, name) VALUES (7, 'A')");
      await app.db.caughtUp();
      await live.settled();
      assert.equal(live.stats().reruns, 4);
      assert.equal(received.at(-1), `q://${FIRST_PAGE}/[]`);
      assert.ok(!received.includes(`q://${FIRST_PAGE + 1}/[]`));
    } finally {
      live.close();
    }
  });
});

/** Joins whose filtered side the plans below visit second: hashed, or looked up inside a nested loop. */
const JOIN_READS: readonly [sql: string, params: readonly Kind[]][] = [
  [
    "SELECT c.id, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE p.score > ? ORDER BY c.id",
    ["num"],
  ],
  [
    "SELECT c.id, c.tag FROM child c JOIN parent p ON p.id = c.parent_id WHERE p.name = ? ORDER BY c.id",
    ["text"],
  ],
  [
    "SELECT p.id, c.tag FROM parent p JOIN child c ON c.parent_id = p.id WHERE c.tag = ? ORDER BY 1, 2",
    ["text"],
  ],
  [
    "SELECT c.id FROM child c WHERE c.parent_id IN (SELECT id FROM parent WHERE score >= ?) ORDER BY 1",
    ["num"],
  ],
];

/** The planner's settings that leave each join one way to go, and the plan the first read then has. */
const FORCED: readonly [settings: string, plan: RegExp][] = [
  [
    "enable_hashjoin = off, enable_mergejoin = off",
    /Nested Loop[\s\S]*Seq Scan on child c[\s\S]*Index Scan using parent_pkey on parent p/,
  ],
  [
    "enable_nestloop = off, enable_mergejoin = off",
    /Hash Join[\s\S]*Seq Scan on child c[\s\S]*Hash[\s\S]*Seq Scan on parent p/,
  ],
];

for (const [settings, planned] of FORCED)
  describe(
    `PostgreSQL: a join planned from its unfiltered side keeps its filter (${settings})`,
    {
      skip: server.skip,
    },
    () => {
      let app: App;
      let url: string;

      before(async () => {
        url = await emptyDatabase(server.url!);
        const name = new URL(url).pathname.slice(1);
        psql(
          url,
          `${SCHEMA}
         ${settings
           .split(", ")
           .map((setting) => `ALTER DATABASE ${name} SET ${setting};`)
           .join("\n")}
         INSERT INTO parent SELECT g, 'f' || g, 'f' || g, NULL, g, g, NULL FROM generate_series(100, 130) g;
         INSERT INTO child SELECT g, 100 + g % 31, 'f' FROM generate_series(1000, 1400) g;
         ANALYZE;`,
        );
        const query = queryCommand(JOIN_READS);
        app = defineApp({
          name: "joins",
          commands: { query },
          agent: { grant: [query] },
          database: postgres(url),
        });
      });
      after(() => app?.close());

      test("the plan visits the unfiltered side first, and the reads are its filter and the keys it looked up", async () => {
        await app.db.run(SEED);
        const [sql] = JOIN_READS[0]!;
        const plan = psql(
          url,
          `SET plan_cache_mode = force_generic_plan; PREPARE q AS ${sql.replace("?", "$1")}; EXPLAIN EXECUTE q(NULL)`,
        );
        assert.match(plan, planned);
        const reads: TableRead[] = [];
        await app.db.observedBy({ read: (each) => reads.push(...each) }).all(sql, 1.5);
        const shown = reads
          .map((read) =>
            read.filter
              ? `${read.table}: ${read.filter.text}`
              : read.column === undefined
                ? `${read.table}: whole`
                : `${read.table}.${read.column} in ${[...read.values].sort().join(", ")} (from ${read.lookedUp})`,
          )
          .sort();
        assert.equal(shown.length, 2, shown.join("\n"));
        assert.equal(
          shown[0],
          "child.parent_id in 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 2, 3 (from parent.id)",
        );
        // Its own test, and the join's, which it cannot tell alone.
        assert.match(shown[1]!, /^parent: .*score > 1\.5/);
      });

      test("row-level matching notifies exactly what table-level matching notifies (random joins and writes)", async () => {
        const reruns: Reruns = { rows: 0, tables: 0 };
        await fc.assert(
          fc.asyncProperty(
            fc.array(statement(JOIN_READS), { minLength: 1, maxLength: 6 }),
            fc.array(write, { minLength: 1, maxLength: 6 }),
            async (reads, writes) => {
              await app.db.run(SEED);
              await engineOf(app).changesCaughtUp();
              await compareMatchings(app, WRITES, reads, writes, reruns);
            },
          ),
          { numRuns: 50, seed: 34 },
        );
        assert.ok(
          reruns.rows < reruns.tables,
          `row matching re-ran ${reruns.rows} times, table matching ${reruns.tables}: no join was narrowed`,
        );
      });
    },
  );
