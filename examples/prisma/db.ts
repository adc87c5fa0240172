import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { postgres, prisma, type DatabaseSource } from "livecmd";
import pg from "pg";
import { PrismaClient } from "./client/client.ts";
import { PrismaClient as PostgresPrismaClient } from "./postgres/client/client.ts";

// `prisma migrate` needs Prisma's schema engine, a binary it downloads: the tables are made here.
const SQLITE_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS authors (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, author_id INTEGER NOT NULL REFERENCES authors(id),
                                     title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '')`,
  `CREATE INDEX IF NOT EXISTS notes_author_id_idx ON notes (author_id)`,
];

const POSTGRES_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS authors (id serial PRIMARY KEY, name text NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS notes (id serial PRIMARY KEY, author_id integer NOT NULL REFERENCES authors(id),
                                     title text NOT NULL, body text NOT NULL DEFAULT '')`,
  `CREATE INDEX IF NOT EXISTS notes_author_id_idx ON notes (author_id)`,
];

/**
 * Prisma 7 on the app's database, and what livecmd is given of it (`database`), so that every
 * statement Prisma runs in a command is watched row by row. On PostgreSQL when `DATABASE_URL` is
 * set: Prisma's adapter for node-postgres on a `pg.Pool` the app makes, and livecmd given that
 * very pool. Else on SQLite at `NOTES_DB` (a fresh database in memory when unset): Prisma's
 * adapter for better-sqlite3, made with livecmd's `prisma(...)`, which connects once so that
 * Prisma and livecmd share that connection.
 */
function open(): { db: PrismaClient; database: DatabaseSource; schema: string[] } {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url });
    // Generated from the same models for PostgreSQL: the same client, but for its provider.
    const db = new PostgresPrismaClient({ adapter: new PrismaPg(pool) }) as unknown as PrismaClient;
    return { db, database: postgres(pool), schema: POSTGRES_SCHEMA };
  }
  const adapter = prisma(new PrismaBetterSqlite3({ url: process.env.NOTES_DB ?? ":memory:" }));
  return { db: new PrismaClient({ adapter }), database: adapter, schema: SQLITE_SCHEMA };
}

const opened = open();
export const { db, database } = opened;
for (const statement of opened.schema) await db.$executeRawUnsafe(statement);
