import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AppDatabase } from "../../packages/livecmd/runtime/db/database.ts";
import {
  openDatabase,
  type DatabaseSource,
} from "../../packages/livecmd/runtime/db/open/openDatabase.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { RunScope } from "../../packages/livecmd/runtime/db/runScope.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { SQLITE_DRIVERS } from "../helpers/sqliteDrivers.ts";

const TABLE = "CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL)";

/** A driver's name, a fresh `items` table on it (`wrote` collects the tables reported changed), and why it skips. */
type Driver = [string, () => Promise<{ db: AppDatabase; wrote: string[][] }>, string?];

const drivers: Driver[] = [
  ...SQLITE_DRIVERS.map((driver): Driver => [
    `SQLite (${driver.name})`,
    async () => {
      const wrote: string[][] = [];
      const source: DatabaseSource = () => {
        const connection = driver.open(":memory:");
        connection.exec(TABLE);
        return connection;
      };
      return {
        db: openDatabase(source, {
          changed: (changes) => void wrote.push(changes.map(({ table }) => table)),
          runs: new RunScope(),
        }),
        wrote,
      };
    },
    driver.skip,
  ]),
  [
    "PostgreSQL",
    async () => {
      const url = await emptyDatabase(postgresServer().url!);
      psql(url, TABLE);
      const wrote: string[][] = [];
      return {
        db: openDatabase(postgres(url), {
          changed: (changes) => void wrote.push(changes.map(({ table }) => table)),
          runs: new RunScope(),
        }),
        wrote,
      };
    },
    postgresServer().skip,
  ],
];

for (const [name, open, skip] of drivers) {
  describe(`${name}: transaction`, { skip }, () => {
    test("statements from within the callback are in it, others wait and do not see its rows; a commit reports the write once", async () => {
      const { db, wrote } = await open();
      try {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const writing = db.transaction(async () => {
          await db.run("INSERT INTO items (id, name) VALUES (?, ?)", 1, "one");
          await held;
          return db.get<{ n: number }>("SELECT COUNT(*) AS n FROM items");
        });
        await new Promise((resolve) => setTimeout(resolve, 20));
        const outside = db.get<{ n: number }>("SELECT COUNT(*) AS n FROM items");
        if (name.startsWith("SQLite")) {
          // One connection: the outside read queues until the commit, then sees the row.
          let answered = false;
          void outside.then(() => (answered = true));
          await new Promise((resolve) => setTimeout(resolve, 20));
          assert.equal(answered, false, "the read waits for the transaction");
          release();
          assert.deepEqual(await outside, { n: 1 });
        } else {
          // Another pooled connection answers at once, from before the transaction's insert.
          assert.deepEqual(await outside, { n: 0 });
          release();
        }
        assert.deepEqual(await writing, { n: 1 });
        await db.caughtUp();
        assert.deepEqual(wrote, [["items"]]);
      } finally {
        await db.close();
      }
    });

    test("a callback that throws rolls back and reports nothing; a savepoint that throws undoes only itself", async () => {
      const { db, wrote } = await open();
      try {
        await assert.rejects(
          db.transaction(async () => {
            await db.run("INSERT INTO items (id, name) VALUES (?, ?)", 1, "gone");
            throw new Error("no");
          }),
          /^Error: no$/,
        );
        await db.transaction(async () => {
          await db.run("INSERT INTO items (id, name) VALUES (?, ?)", 2, "kept");
          await db
            .transaction(async () => {
              await db.run("INSERT INTO items (id, name) VALUES (?, ?)", 3, "undone");
              throw new Error("inner");
            })
            .catch(() => {});
        });
        assert.deepEqual(await db.all("SELECT id, name FROM items ORDER BY id"), [
          { id: 2, name: "kept" },
        ]);
        await db.caughtUp();
        assert.deepEqual(wrote, [["items"]]);
      } finally {
        await db.close();
      }
    });
  });
}
