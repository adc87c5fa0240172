import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { count, eq, gt, inArray, like } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { integer, pgTable, serial, text } from "drizzle-orm/pg-core";
import fc from "fast-check";
import { Kysely, PostgresDialect, type Generated } from "kysely";
import pg from "pg";
import { defineApp, postgres, type App } from "../../packages/livecmd/runtime/index.ts";
import {
  readerCommand,
  watch,
  writeAndCompare,
  writeBatches,
  writeThroughApp,
  type Oracle,
  type Statement,
  type WriteBatch,
} from "../helpers/differentialLive.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

const SCHEMA = /* sql */ `
  CREATE TABLE parent (id integer PRIMARY KEY, name text, code text UNIQUE);
  CREATE INDEX parent_by_name ON parent (name);
  CREATE TABLE child (id serial PRIMARY KEY,
                      parent_id integer REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE, tag text);
  CREATE INDEX child_by_parent ON child (parent_id);
  -- Rows the property never writes (its keys are 1 to 4), so that the planner uses the indexes.
  INSERT INTO parent SELECT g, 'f' || g, 'f' || g FROM generate_series(100, 2000) g;
  INSERT INTO child SELECT g, g - 900, 'f' FROM generate_series(1000, 2900) g;
  ANALYZE;
`;

/** Every run starts from these rows. */
const SEED = /* sql */ `
  DELETE FROM child WHERE id < 1000; DELETE FROM parent WHERE id < 100;
  ALTER SEQUENCE child_id_seq RESTART;
  INSERT INTO parent VALUES (1, 'a', 'x1'), (2, 'B', 'x2'), (3, 'c', 'x3');
  INSERT INTO child (parent_id, tag) VALUES (2, 't'), (3, 't'), (1, 'u');
`;

const parent = pgTable("parent", {
  id: integer("id").primaryKey(),
  name: text("name"),
  code: text("code"),
});
const child = pgTable("child", {
  id: serial("id").primaryKey(),
  parentId: integer("parent_id"),
  tag: text("tag"),
});
interface Tables {
  parent: { id: number; name: string | null; code: string | null };
  child: { id: Generated<number>; parent_id: number | null; tag: string | null };
}

type Orm = NodePgDatabase;
type Values = never;

/** Reads written three ways, each reading the same rows: the SQL (the app's, and the oracle's), Drizzle's, Kysely's. */
const READS: readonly {
  sql: string;
  params: readonly Kind[];
  drizzle: (orm: Orm, a: Values, b: Values) => Promise<unknown>;
  kysely: (db: Kysely<Tables>, a: Values, b: Values) => Promise<unknown>;
}[] = [
  {
    sql: "SELECT * FROM parent WHERE id = $1",
    params: ["int"],
    drizzle: (orm, a) => orm.select().from(parent).where(eq(parent.id, a)),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("id", "=", a).execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE name = $1",
    params: ["text"],
    drizzle: (orm, a) => orm.select().from(parent).where(eq(parent.name, a)),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("name", "=", a).execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE code = $1",
    params: ["text"],
    drizzle: (orm, a) => orm.select().from(parent).where(eq(parent.code, a)),
    kysely: (db, a) => db.selectFrom("parent").selectAll().where("code", "=", a).execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE id IN ($1, $2) ORDER BY id",
    params: ["int", "int"],
    drizzle: (orm, a, b) =>
      orm
        .select()
        .from(parent)
        .where(inArray(parent.id, [a, b]))
        .orderBy(parent.id),
    kysely: (db, a, b) =>
      db.selectFrom("parent").selectAll().where("id", "in", [a, b]).orderBy("id").execute(),
  },
  {
    sql: "SELECT * FROM child WHERE parent_id = $1 ORDER BY id",
    params: ["int"],
    drizzle: (orm, a) => orm.select().from(child).where(eq(child.parentId, a)).orderBy(child.id),
    kysely: (db, a) =>
      db.selectFrom("child").selectAll().where("parent_id", "=", a).orderBy("id").execute(),
  },
  {
    sql: "SELECT p.id, COUNT(c.id)::int AS n FROM parent p LEFT JOIN child c ON c.parent_id = p.id WHERE p.id = $1 GROUP BY p.id",
    params: ["int"],
    drizzle: (orm, a) =>
      orm
        .select({ id: parent.id, n: count(child.id) })
        .from(parent)
        .leftJoin(child, eq(child.parentId, parent.id))
        .where(eq(parent.id, a))
        .groupBy(parent.id),
    kysely: (db, a) =>
      db
        .selectFrom("parent as p")
        .leftJoin("child as c", "c.parent_id", "p.id")
        .select((eb) => ["p.id", eb.fn.count("c.id").as("n")])
        .where("p.id", "=", a)
        .groupBy("p.id")
        .execute(),
  },
  {
    sql: "SELECT count(*)::int AS n FROM parent",
    params: [],
    drizzle: (orm) => orm.select({ n: count() }).from(parent),
    kysely: (db) =>
      db
        .selectFrom("parent")
        .select((eb) => eb.fn.countAll().as("n"))
        .execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE name LIKE $1 ORDER BY id",
    params: ["text"],
    drizzle: (orm, a) => orm.select().from(parent).where(like(parent.name, a)).orderBy(parent.id),
    kysely: (db, a) =>
      db.selectFrom("parent").selectAll().where("name", "like", a).orderBy("id").execute(),
  },
  {
    sql: "SELECT c.id, p.name FROM child c JOIN parent p ON p.id = c.parent_id WHERE p.name = $1 ORDER BY c.id",
    params: ["text"],
    drizzle: (orm, a) =>
      orm
        .select({ id: child.id, name: parent.name })
        .from(child)
        .innerJoin(parent, eq(parent.id, child.parentId))
        .where(eq(parent.name, a))
        .orderBy(child.id),
    kysely: (db, a) =>
      db
        .selectFrom("child as c")
        .innerJoin("parent as p", "p.id", "c.parent_id")
        .select(["c.id", "p.name"])
        .where("p.name", "=", a)
        .orderBy("c.id")
        .execute(),
  },
  {
    sql: "SELECT * FROM parent WHERE name > $1 ORDER BY id",
    params: ["text"],
    drizzle: (orm, a) => orm.select().from(parent).where(gt(parent.name, a)).orderBy(parent.id),
    kysely: (db, a) =>
      db.selectFrom("parent").selectAll().where("name", ">", a).orderBy("id").execute(),
  },
];

/** The join (keyed by the parents it looked up) and the filter, of READS. */
const JOIN = READS.findIndex(({ sql }) => sql.includes(" JOIN parent p"));
const FILTER = READS.findIndex(({ sql }) => sql.includes("name > $1"));

const WRITES: readonly {
  sql: string;
  params: readonly Kind[];
  drizzle: (orm: Orm, a: Values, b: Values, c: Values) => Promise<unknown>;
  kysely: (db: Kysely<Tables>, a: Values, b: Values, c: Values) => Promise<unknown>;
}[] = [
  {
    sql: "INSERT INTO parent (id, name, code) VALUES ($1, $2, $3)",
    params: ["int", "text", "text"],
    drizzle: (orm, id, name, code) => orm.insert(parent).values({ id, name, code }),
    kysely: (db, id, name, code) => db.insertInto("parent").values({ id, name, code }).execute(),
  },
  {
    sql: "UPDATE parent SET name = $1 WHERE id = $2",
    params: ["text", "int"],
    drizzle: (orm, name, id) => orm.update(parent).set({ name }).where(eq(parent.id, id)),
    kysely: (db, name, id) => db.updateTable("parent").set({ name }).where("id", "=", id).execute(),
  },
  {
    sql: "UPDATE parent SET id = $1 WHERE id = $2",
    params: ["int", "int"],
    drizzle: (orm, to, id) => orm.update(parent).set({ id: to }).where(eq(parent.id, id)),
    kysely: (db, to, id) => db.updateTable("parent").set({ id: to }).where("id", "=", id).execute(),
  },
  {
    sql: "DELETE FROM parent WHERE id = $1",
    params: ["int"],
    drizzle: (orm, id) => orm.delete(parent).where(eq(parent.id, id)),
    kysely: (db, id) => db.deleteFrom("parent").where("id", "=", id).execute(),
  },
  {
    sql: "INSERT INTO child (parent_id, tag) VALUES ($1, $2)",
    params: ["int", "text"],
    drizzle: (orm, parentId, tag) => orm.insert(child).values({ parentId, tag }),
    kysely: (db, parent_id, tag) => db.insertInto("child").values({ parent_id, tag }).execute(),
  },
  {
    sql: "UPDATE child SET parent_id = $1 WHERE id = $2",
    params: ["int", "int"],
    drizzle: (orm, parentId, id) => orm.update(child).set({ parentId }).where(eq(child.id, id)),
    kysely: (db, parent_id, id) =>
      db.updateTable("child").set({ parent_id }).where("id", "=", id).execute(),
  },
  {
    sql: "DELETE FROM child WHERE id = $1",
    params: ["int"],
    drizzle: (orm, id) => orm.delete(child).where(eq(child.id, id)),
    kysely: (db, id) => db.deleteFrom("child").where("id", "=", id).execute(),
  },
];

const SQLS = WRITES.map(({ sql }) => [sql] as const);

/** What a parameter may be, by the type of what it is compared with or written to. */
const VALUES = {
  // Mostly the ids the seed holds, so that reads and writes meet.
  int: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<unknown>(1, 2, 3) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(4, "3", null) },
  ),
  text: fc.constantFrom<unknown>("a", "A", "B", "x1", "c%", null),
};
type Kind = keyof typeof VALUES;

const statement = (table: readonly { params: readonly Kind[] }[]) =>
  fc
    .integer({ min: 0, max: table.length - 1 })
    .chain((i) =>
      fc.tuple(fc.constant(i), fc.tuple(...table[i]!.params.map((kind) => VALUES[kind]))),
    );

/** A batch of writes, by another client (`elsewhere`), through `ctx.db`, or through the library. */
type StackBatch = WriteBatch & { throughLibrary: boolean };
const batches = fc
  .tuple(writeBatches(statement(WRITES), { elsewhere: true }), fc.boolean())
  .map(([batch, throughLibrary]): StackBatch => ({ ...batch, throughLibrary }));

/** One way of reading and writing through the app's own pool. */
interface Stack {
  readonly name: string;
  readers(pool: pg.Pool): ((...params: never[]) => unknown)[];
  write(pool: pg.Pool, batch: WriteBatch): Promise<void>;
}

/** The statements of `batch` on `client`, each in a savepoint (rolled back alone when it fails). */
async function writeOn(client: pg.Client | pg.PoolClient, { statements, rollback }: WriteBatch) {
  await client.query("BEGIN");
  for (const [i, params] of statements) {
    await client.query("SAVEPOINT one");
    await client
      .query(WRITES[i]!.sql, params)
      .catch(() => client.query("ROLLBACK TO SAVEPOINT one"));
  }
  await client.query(rollback ? "ROLLBACK" : "COMMIT");
}

const sqlStack: Stack = {
  name: "the app's SQL",
  readers: (pool) =>
    READS.map(
      ({ sql }) =>
        async (...params: never[]) =>
          (await pool.query(sql, params)).rows,
    ),
  async write(pool, batch) {
    const client = await pool.connect();
    try {
      await writeOn(client, batch);
    } finally {
      client.release();
    }
  },
};

const drizzleStack: Stack = {
  name: "Drizzle",
  readers(pool) {
    const orm = drizzle(pool);
    return READS.map(
      (read) =>
        (...params: never[]) =>
          read.drizzle(orm, params[0]!, params[1]!),
    );
  },
  async write(pool, { statements, rollback }) {
    await drizzle(pool)
      .transaction(async (tx) => {
        for (const [i, params] of statements)
          await tx
            .transaction((savepoint) =>
              WRITES[i]!.drizzle(savepoint as unknown as Orm, ...(params as [never, never, never])),
            )
            .catch(() => {});
        if (rollback) tx.rollback();
      })
      .catch(() => {});
  },
};

const kysely = new WeakMap<pg.Pool, Kysely<Tables>>();
function kyselyOn(pool: pg.Pool): Kysely<Tables> {
  let db = kysely.get(pool);
  if (!db) kysely.set(pool, (db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })));
  return db;
}

const kyselyStack: Stack = {
  name: "Kysely",
  readers(pool) {
    const db = kyselyOn(pool);
    return READS.map(
      (read) =>
        (...params: never[]) =>
          read.kysely(db, params[0]!, params[1]!),
    );
  },
  async write(pool, { statements, rollback }) {
    const trx = await kyselyOn(pool).startTransaction().execute();
    for (const [i, params] of statements) {
      const savepoint = await trx.savepoint("one").execute();
      try {
        await WRITES[i]!.kysely(savepoint, ...(params as [never, never, never]));
        await savepoint.releaseSavepoint("one").execute();
      } catch {
        await savepoint.rollbackToSavepoint("one").execute();
      }
    }
    await (rollback ? trx.rollback() : trx.commit()).execute();
  },
};

/** Another client of the database, as `psql` would be: each watched read's result, and writes of its own. */
function otherClient(client: pg.Client, reads: readonly Statement[]): Oracle {
  return {
    results: () =>
      Promise.all(
        reads.map(async ([i, params]) =>
          JSON.stringify((await client.query(READS[i]!.sql, params)).rows),
        ),
      ),
    writeElsewhere: (batch) => writeOn(client, batch),
  };
}

for (const stack of [sqlStack, drizzleStack, kyselyStack])
  describe(
    `PostgreSQL: live rows through ${stack.name} on the app's pg.Pool`,
    { skip: server.skip },
    () => {
      let url: string;
      let pool: pg.Pool;
      let other: pg.Client;
      let app: App;

      before(async () => {
        url = await emptyDatabase(server.url!);
        psql(url, SCHEMA);
        pool = new pg.Pool({ connectionString: url });
        other = new pg.Client({ connectionString: url });
        await other.connect();
        const query = readerCommand(stack.readers(pool));
        app = defineApp({
          name: "rows",
          commands: { query },
          agent: { grant: [query] },
          database: postgres(pool),
        });
        await app.ready();
      });
      after(async () => {
        await app?.close();
        await other?.end();
        await pool?.end();
      });

      test("row-level matching notifies what table-level matching does, and exactly the reads whose results a write changed, whether written through the library, ctx.db or another client (random reads and writes)", async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(statement(READS), { minLength: 1, maxLength: 8 }),
            fc.array(batches, { minLength: 1, maxLength: 5 }),
            async (reads, writes) => {
              await app.db.run(SEED);
              await app.db.caughtUp();
              const rows = await watch(app, "rows", reads);
              const tables = await watch(app, "tables", reads);
              try {
                assert.deepEqual(rows.live.unseen(), []);
                await writeAndCompare(
                  app,
                  SQLS,
                  writes,
                  rows,
                  tables,
                  otherClient(other, reads),
                  (batch) =>
                    batch.throughLibrary
                      ? stack.write(pool, batch)
                      : writeThroughApp(app, SQLS, batch),
                );
              } finally {
                rows.live.close();
                tables.live.close();
              }
            },
          ),
          { numRuns: 40, seed: 32, interruptAfterTimeLimit: 60_000 },
        );
      });

      test("a write to a row nobody watches re-runs nothing; to a watched row, through the library, ctx.db or psql, only its readers", async () => {
        await app.db.run(SEED);
        await app.db.caughtUp();
        const { live, received } = await watch(app, "rows", [
          [0, [1]],
          [0, [2]],
          [4, [2]],
        ]);
        const settled = async () => {
          await app.db.caughtUp();
          await live.settled();
        };
        await stack.write(pool, { statements: [[1, ["z", 3]]], rollback: false });
        await settled();
        assert.equal(live.stats().reruns, 0);
        await stack.write(pool, { statements: [[3, [2]]], rollback: false }); // cascades to child 1
        await settled();
        assert.deepEqual(
          { reruns: live.stats().reruns, received: [...received].sort() },
          { reruns: 2, received: ["q://0/[2]", "q://4/[2]"] },
        );
        await app.db.run("UPDATE parent SET name = 'w' WHERE id = 1");
        await settled();
        psql(url, "UPDATE parent SET name = 'v' WHERE id = 1");
        await new Promise((resolve) => setTimeout(resolve, 100));
        await settled();
        assert.deepEqual(received.filter((uri) => uri === "q://0/[1]").length, 2);
        live.close();
      });

      test("a join and a filter through the pool are watched by the keys looked up and by the filter: a write to another row re-runs nothing, to a matching row its reader", async () => {
        await app.db.run(SEED);
        await app.db.caughtUp();
        const { live, received } = await watch(app, "rows", [
          [JOIN, ["B"]], // parent 2's children: parent keyed by name, child by parent_id 2
          [FILTER, ["b"]], // 'c' and the filler ('f...'): name > 'b'
        ]);
        const settled = async () => {
          await app.db.caughtUp();
          await live.settled();
        };
        try {
          await stack.write(pool, {
            statements: [
              [1, ["A", 1]], // 'a' to 'A': neither 'B' nor past 'b'
              [4, [1, "v"]], // a child of parent 1
            ],
            rollback: false,
          });
          await settled();
          assert.equal(live.stats().reruns, 0);
          await stack.write(pool, { statements: [[4, [2, "v"]]], rollback: false });
          await settled();
          assert.deepEqual(
            { reruns: live.stats().reruns, received },
            { reruns: 1, received: [`q://${JOIN}/["B"]`] },
          );
          await stack.write(pool, { statements: [[1, ["d", 3]]], rollback: false });
          await settled();
          assert.deepEqual(
            { reruns: live.stats().reruns, received },
            { reruns: 2, received: [`q://${JOIN}/["B"]`, `q://${FILTER}/["b"]`] },
          );
        } finally {
          live.close();
        }
      });
    },
  );
