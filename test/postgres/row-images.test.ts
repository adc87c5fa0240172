import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { byCodeUnit } from "../../packages/livecmd/runtime/text/byCodeUnit.ts";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { PAYLOAD_LIMIT } from "../../packages/livecmd/runtime/db/postgres/changes/changeFeed.ts";
import { ChangeListener } from "../../packages/livecmd/runtime/db/postgres/changes/changeListener.ts";
import { installChangeFeed } from "../../packages/livecmd/runtime/db/postgres/changes/installChangeFeed.ts";
import type { PgPool } from "../../packages/livecmd/runtime/db/postgres/pgLibrary.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

/** Indexed columns of each key type, columns that never key (numeric, citext-like) but filters compare, a cascade, an app trigger. */
const SCHEMA = `
  CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
  CREATE TABLE customers (id integer PRIMARY KEY, email text UNIQUE, handle text COLLATE nocase UNIQUE,
                          score numeric UNIQUE, ref uuid UNIQUE, name text);
  CREATE TABLE orders (id bigint PRIMARY KEY, customer_id integer REFERENCES customers(id) ON DELETE CASCADE);
  CREATE INDEX orders_customer ON orders (customer_id);
  CREATE TABLE audit (id serial PRIMARY KEY, customer_id integer);
  CREATE FUNCTION audit_customer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO audit (customer_id) VALUES (NEW.id); RETURN NEW; END $$;
  CREATE TRIGGER customers_audited AFTER INSERT ON customers FOR EACH ROW EXECUTE FUNCTION audit_customer();
`;

/** The feed installed on a database of its own, and a listener recording what `changed` receives. */
describe("PostgreSQL: row images in the change feed", { skip: server.skip }, () => {
  let url: string;
  let pool: PgPool;
  let listener: ChangeListener;
  const heard: TableChange[] = [];

  before(async () => {
    url = await emptyDatabase(server.url!);
    psql(url, SCHEMA);
    pool = new pg.Pool({ connectionString: url }) as unknown as PgPool;
    await installChangeFeed(pool, "triggers");
    listener = new ChangeListener(
      () => pool,
      (changes) => heard.push(...changes),
      () => {},
    );
    await listener.start();
  });
  after(async () => {
    await listener.close();
    await pool.end();
  });

  /**
   * What the listener reports for each transaction of `transactions` run from psql (another
   * process), once it has all arrived; in a stable order (triggers fire in no order we assert).
   */
  async function changesOf(...transactions: string[]): Promise<TableChange[]> {
    heard.length = 0;
    for (const sql of transactions) psql(url, sql);
    await listener.caughtUp();
    return inOrder(heard.splice(0));
  }

  test("an insert sends the new rows' columns of the types filters compare, as their text: integers, numeric, text (any collation), uuid", async () => {
    assert.deepEqual(
      await changesOf(
        "INSERT INTO customers VALUES (1, 'a@x', 'Ann', 7.0, '6F9619FF-8B86-D011-B42D-00C04FC964FF', 'Ann'), (2, NULL, 'Bob', 1, NULL, 'Bob')",
      ),
      inOrder([
        { table: "customers", rows: [ANN, BOB] },
        { table: "audit", rows: [{ id: "1", customer_id: "1" }] },
        { table: "audit", rows: [{ id: "2", customer_id: "2" }] },
      ]),
    );
  });

  test("an update of the key column itself sends the old and the new key", async () => {
    await changesOf("INSERT INTO orders VALUES (10, 1), (11, 1), (12, 2)");
    assert.deepEqual(await changesOf("UPDATE orders SET customer_id = 2 WHERE id = 10"), [
      {
        table: "orders",
        rows: [
          { id: "10", customer_id: "1" },
          { id: "10", customer_id: "2" },
        ],
      },
    ]);
  });

  test("a foreign-key cascade is seen: the deleted children's old keys", async () => {
    assert.deepEqual(
      await changesOf("DELETE FROM customers WHERE id = 2"),
      inOrder([
        { table: "customers", rows: [BOB] },
        {
          table: "orders",
          rows: [
            { id: "10", customer_id: "2" },
            { id: "12", customer_id: "2" },
          ],
        },
      ]),
    );
  });

  test("a rolled-back write and a statement that changed no row send nothing", async () => {
    assert.deepEqual(
      await changesOf(
        "BEGIN; DELETE FROM customers; ROLLBACK; UPDATE customers SET name = 'x' WHERE false",
      ),
      [],
    );
  });

  test("TRUNCATE and a change too large for one payload say the whole table", async () => {
    const many = Math.ceil(PAYLOAD_LIMIT / 10);
    assert.deepEqual(
      await changesOf(
        `INSERT INTO orders SELECT g, 1 FROM generate_series(1000, ${1000 + many}) g`,
        "TRUNCATE orders",
      ),
      [{ table: "orders" }, { table: "orders" }],
    );
  });

  test("a value over 256 bytes is left out of an image; images too large for a payload with every column are sent with their key columns alone", async () => {
    const long = "x".repeat(300);
    assert.deepEqual(await changesOf(`UPDATE customers SET name = '${long}' WHERE id = 1`), [
      { table: "customers", rows: [ANN, omit(ANN, "name")] },
    ]);
    const name = "n".repeat(200);
    const many = Math.ceil(PAYLOAD_LIMIT / 200);
    const inserted = await changesOf(
      `INSERT INTO customers (id, name) SELECT g, '${name}' FROM generate_series(100, ${99 + many}) g`,
    );
    const customers = inserted.find(({ table }) => table === "customers")!;
    assert.equal(customers.rows?.length, many);
    assert.deepEqual(customers.rows?.[0], { id: "100", email: null, ref: null });
    await changesOf(
      `DELETE FROM customers WHERE id >= 100; UPDATE customers SET name = 'Ann' WHERE id = 1`,
    );
  });

  test("a column added later is carried at once; a table created later is watched; each, as DDL, is every table changed", async () => {
    assert.deepEqual(
      await changesOf(
        "ALTER TABLE customers ADD COLUMN tier smallint; UPDATE customers SET name = 'Anna', tier = 2 WHERE id = 1; CREATE TABLE later (k text PRIMARY KEY); INSERT INTO later VALUES ('x')",
      ),
      inOrder([
        { table: ANY_TABLE },
        { table: ANY_TABLE },
        {
          table: "customers",
          rows: [
            { ...ANN, tier: null },
            { ...ANN, name: "Anna", tier: "2" },
          ],
        },
        { table: "later", rows: [{ k: "x" }] },
      ]),
    );
  });
});

/** The two customers as the feed writes them. */
const ANN = {
  id: "1",
  email: "a@x",
  handle: "Ann",
  score: "7.0",
  ref: "6f9619ff-8b86-d011-b42d-00c04fc964ff",
  name: "Ann",
};
const BOB = { id: "2", email: null, handle: "Bob", score: "1", ref: null, name: "Bob" };

function omit<T extends object>(row: T, column: keyof T): Partial<T> {
  const { [column]: _left, ...rest } = row;
  return rest as Partial<T>;
}

function inOrder(changes: TableChange[]): TableChange[] {
  // By text with keys in one order, whichever order the feed wrote them in.
  const text = (value: unknown) =>
    JSON.stringify(value, (_, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort())
        : v,
    );
  const byText = (a: unknown, b: unknown) => byCodeUnit(text(a), text(b));
  return changes
    .map((change) => (change.rows ? { ...change, rows: [...change.rows].sort(byText) } : change))
    .sort(byText);
}

describe("PostgreSQL: migrating the change feed of earlier versions", { skip: server.skip }, () => {
  test("install replaces the one trigger that sent table names; a process still hearing a name reports any rows of it", async () => {
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      `CREATE TABLE notes (id integer PRIMARY KEY);
       CREATE SCHEMA livecmd;
       CREATE FUNCTION livecmd.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_notify('livecmd_changes', TG_TABLE_NAME); RETURN NULL; END $$;
       CREATE TRIGGER livecmd_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON notes
         FOR EACH STATEMENT EXECUTE FUNCTION livecmd.notify_change()`,
    );
    const pool = new pg.Pool({ connectionString: url }) as unknown as PgPool;
    const heard: TableChange[] = [];
    const listener = new ChangeListener(
      () => pool,
      (changes) => heard.push(...changes),
      () => {},
    );
    try {
      await listener.start();
      psql(url, "SELECT pg_notify('livecmd_changes', 'notes')");
      assert.deepEqual(
        (
          await Promise.all([
            installChangeFeed(pool, "triggers"),
            installChangeFeed(pool, "triggers"),
          ])
        ).sort(),
        [0, 1],
      );
      assert.equal(
        psql(
          url,
          "SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = 'notes'::regclass",
        ),
        "livecmd_notify_delete,livecmd_notify_insert,livecmd_notify_truncate,livecmd_notify_update",
      );
      psql(url, "INSERT INTO notes VALUES (5)");
      await listener.caughtUp();
      assert.deepEqual(heard, [{ table: "notes" }, { table: "notes", rows: [{ id: "5" }] }]);
    } finally {
      await listener.close();
      await pool.end();
    }
  });
});
