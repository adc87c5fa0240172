import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, type Generated } from "kysely";
import { postgres, type DatabaseSource } from "livecmd";
import pg from "pg";

export interface Tables {
  authors: { id: Generated<number>; name: string };
  notes: { id: Generated<number>; author_id: number; title: string; body: Generated<string> };
}

const SQLITE_SCHEMA = /* sql */ `
  CREATE TABLE IF NOT EXISTS authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id),
                                    title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '');
  CREATE INDEX IF NOT EXISTS notes_by_author ON notes (author_id);
`;

const POSTGRES_SCHEMA = /* sql */ `
  CREATE TABLE IF NOT EXISTS authors (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE IF NOT EXISTS notes (id serial PRIMARY KEY, author_id integer NOT NULL REFERENCES authors(id),
                                    title text NOT NULL, body text NOT NULL DEFAULT '');
  CREATE INDEX IF NOT EXISTS notes_by_author ON notes (author_id);
`;

/**
 * The app's database, as a Kysely app has it: one `Kysely` over the connection the app made, and
 * that very connection given to livecmd (`database`), so that every statement Kysely sends in a
 * command is watched row by row. On PostgreSQL (a `pg.Pool`) when `DATABASE_URL` is set, else on
 * SQLite (better-sqlite3) at `NOTES_DB`, a fresh one in memory when that is unset.
 */
async function open(): Promise<{ db: Kysely<Tables>; database: DatabaseSource }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(POSTGRES_SCHEMA);
    return {
      db: new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) }),
      database: postgres(pool),
    };
  }
  const sqlite = new Database(process.env.NOTES_DB ?? ":memory:");
  sqlite.exec(SQLITE_SCHEMA);
  return {
    db: new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) }),
    database: () => sqlite,
  };
}

export const { db, database } = await open();
