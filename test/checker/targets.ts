import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { App } from "../../packages/livecmd/runtime/index.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { createExampleApp } from "../../example/app.ts";
import { root } from "../helpers/cli.ts";
import type { Pick, Target, Write } from "./liveChecker.ts";

const run = promisify(execFile);

/** Which database a target runs on, and how someone who is not the app writes to it. */
export type Elsewhere = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** A write by someone who is not the app: `psql` on PostgreSQL, another Node process on SQLite. */
function writeElsewhere(where: Elsewhere, sql: string): Promise<unknown> {
  if (where.kind === "postgres")
    return run("psql", [where.url, "-v", "ON_ERROR_STOP=1", "-Xqc", sql]);
  const script = `const Database = require("better-sqlite3"); const db = new Database(process.argv[1]); db.pragma("busy_timeout = 5000"); db.exec(process.argv[2]);`;
  return run(process.execPath, ["--eval", script, where.file, sql], { cwd: root });
}

function elsewhereName(where: Elsewhere): string {
  return where.kind === "postgres" ? "psql" : "another process";
}

/** Titles and names no write has used before: every write changes what it touches. */
let written = 0;
const fresh = (prefix: string) => `${prefix}${++written}`;

/** Runs `name(...args)` as the app itself, outside any agent's run. */
async function asApp(app: App, name: string, args: unknown[]): Promise<unknown> {
  return engineOf(app).run(name, args, { origin: Origin.App });
}

// ---------------------------------------------------------------------------------------------
// The example app (example/): its commands read through ctx.db, with joins and filters.

const CUSTOMERS = 24;
const ORDER_TOTALS = [50, 400, 900, 2_000];

/**
 * The example shop on `where`, watched by customer (orders and tags joined), by orders over a
 * total (a filter), by search and by flag; written by its tools, by ctx.db, from elsewhere, and
 * in storms that change every watched customer.
 */
export function exampleShop(app: App, where: Elsewhere, name: string): Target {
  const customer = (pick: Pick) => 1 + pick.int(CUSTOMERS);
  const writes: Write[] = [
    {
      through: "the app's tool customers_rename",
      prepare: (pick) => {
        const args = { id: customer(pick), name: fresh("Name ") };
        return (tools) => tools("customers_rename", args);
      },
    },
    {
      through: "the app's tool orders_create",
      prepare: (pick) => {
        const args = {
          customer_id: customer(pick),
          total: pick.item(ORDER_TOTALS) + pick.int(100),
          status: pick.item(["pending", "paid"]),
          placed_on: "2025-06-01",
        };
        return (tools) => tools("orders_create", args);
      },
    },
    {
      through: "ctx.db (an order's total)",
      prepare: (pick) => {
        const [total, id] = [pick.item(ORDER_TOTALS) + pick.int(100), customer(pick)];
        const sql =
          "UPDATE orders SET total = ? WHERE id = (SELECT MIN(id) FROM orders WHERE customer_id = ?)";
        return () => app.db.run(sql, total, id);
      },
    },
    {
      through: "ctx.db (a tag)",
      prepare: (pick) => {
        const [id, tag] = [customer(pick), fresh("tag-")];
        return () =>
          app.db.run("INSERT INTO customer_tags (customer_id, tag) VALUES (?, ?)", id, tag);
      },
    },
    {
      through: elsewhereName(where),
      prepare: (pick) => {
        const sql = `UPDATE customers SET balance = ${pick.int(10_000)} WHERE id = ${customer(pick)}`;
        return () => writeElsewhere(where, sql);
      },
    },
    {
      through: `a storm through ${elsewhereName(where)}`,
      storm: true,
      prepare: () => () =>
        writeElsewhere(
          where,
          `UPDATE customers SET balance = balance + 1 WHERE id <= ${CUSTOMERS}; UPDATE orders SET flagged = 1 - flagged WHERE customer_id <= ${CUSTOMERS}`,
        ),
    },
    {
      through: "a storm through ctx.db",
      storm: true,
      prepare: () => () =>
        app.db.run(`UPDATE customers SET name = name || '.' WHERE id <= ${CUSTOMERS}`),
    },
  ];
  const uris = [
    ...Array.from({ length: CUSTOMERS }, (_, i) => `app://customers_show/${i + 1}`),
    ...ORDER_TOTALS.map((total) => `app://orders_over/${total + 90}`),
    `app://orders_over/${ORDER_TOTALS[2]}?status=paid`,
    "app://orders_flagged",
    "app://customers_index?search=Ada",
    "app://customers_index?per_page=10&sort=name",
  ];
  return { name, app, uris, writes };
}

/** The example shop on a fresh SQLite file, or on a fresh seeded PostgreSQL database. */
export async function exampleShopOn(where: Elsewhere): Promise<Target> {
  if (where.kind === "sqlite")
    return exampleShop(createExampleApp(where.file, { sqlite: true }), where, "ctx.db on SQLite");
  process.env.DATABASE_URL = where.url;
  const app = createExampleApp();
  await app.ready();
  return exampleShop(app, where, "ctx.db on PostgreSQL");
}

// ---------------------------------------------------------------------------------------------
// The notes apps of examples/: Drizzle, Kysely and Prisma on the handle livecmd was given.

export const LIBRARIES = ["drizzle", "kysely", "prisma"] as const;
export type Library = (typeof LIBRARIES)[number];

const AUTHORS = 3;
const NOTES_EACH = 10;

/** How each library writes a note's title, outside any run: the app's own code, not livecmd's. */
type RenameThrough = (id: number, title: string) => Promise<unknown>;

async function libraryRename(library: Library): Promise<RenameThrough> {
  if (library === "drizzle") {
    const { store } = (await import("../../examples/drizzle/db.ts")) as {
      store: { rename: RenameThrough };
    };
    return (id, title) => store.rename(id, title);
  }
  if (library === "kysely") {
    const { db } = await import("../../examples/kysely/db.ts");
    return (id, title) => db.updateTable("notes").set({ title }).where("id", "=", id).execute();
  }
  const { db } = await import("../../examples/prisma/db.ts");
  return (id, title) => db.note.update({ where: { id }, data: { title } });
}

/**
 * examples/`library` on `where` (its module opens the database `DATABASE_URL` or `NOTES_DB`
 * names, once per process: one library per database in a process), with authors and notes made
 * through its tools; watched by note and by author; written through its tools, by the library
 * itself, by ctx.db, from elsewhere, and in storms.
 */
export async function notesOn(library: Library, where: Elsewhere): Promise<Target> {
  if (where.kind === "postgres") process.env.DATABASE_URL = where.url;
  else {
    delete process.env.DATABASE_URL;
    process.env.NOTES_DB = where.file;
  }
  const { default: app } = (await import(`../../examples/${library}/app.ts`)) as { default: App };
  const rename = await libraryRename(library);
  for (let author = 1; author <= AUTHORS; author++) {
    await asApp(app, "authors_create", [`Author ${author}`]);
    for (let n = 0; n < NOTES_EACH; n++) await asApp(app, "notes_create", [author, fresh("t")]);
  }
  const note = (pick: Pick) => 1 + pick.int(AUTHORS * NOTES_EACH);
  const author = (pick: Pick) => 1 + pick.int(AUTHORS);
  const writes: Write[] = [
    {
      through: "the app's tool notes_rename",
      prepare: (pick) => {
        const args = { id: note(pick), title: fresh("t") };
        return (tools) => tools("notes_rename", args);
      },
    },
    {
      through: "the app's tool notes_create",
      prepare: (pick) => {
        const args = { author_id: author(pick), title: fresh("t") };
        return (tools) => tools("notes_create", args);
      },
    },
    {
      through: `${library} itself`,
      prepare: (pick) => {
        const [id, title] = [note(pick), fresh("t")];
        return () => rename(id, title);
      },
    },
    {
      through: "ctx.db (a note to another author)",
      prepare: (pick) => {
        const [to, id] = [author(pick), note(pick)];
        return () => app.db.run("UPDATE notes SET author_id = ? WHERE id = ?", to, id);
      },
    },
    {
      through: elsewhereName(where),
      prepare: (pick) => {
        const sql = `UPDATE notes SET title = '${fresh("t")}' WHERE id = ${note(pick)}`;
        return () => writeElsewhere(where, sql);
      },
    },
    {
      through: `a storm through ${elsewhereName(where)}`,
      storm: true,
      prepare: () => () => writeElsewhere(where, `UPDATE notes SET title = title || '.'`),
    },
    {
      through: "a storm through ctx.db",
      storm: true,
      prepare: () => {
        const body = fresh("b");
        return () => app.db.run("UPDATE notes SET body = ?", body);
      },
    },
  ];
  if (where.kind === "postgres")
    writes.push({
      through: "a slow transaction through psql",
      prepare: (pick) => {
        const sql = `BEGIN; UPDATE notes SET title = '${fresh("t")}' WHERE id = ${note(pick)}; SELECT pg_sleep(0.05); COMMIT;`;
        return () => writeElsewhere(where, sql);
      },
    });
  const uris = [
    ...Array.from({ length: AUTHORS * NOTES_EACH }, (_, i) => `notes://notes_show/${i + 1}`),
    ...Array.from({ length: AUTHORS }, (_, i) => `notes://notes_by_author/${i + 1}`),
  ];
  const database = where.kind === "postgres" ? "PostgreSQL" : "SQLite";
  return { name: `${library} on ${database}`, app, uris, writes };
}
