import { postgresNotes } from "./postgres.ts";
import { sqliteNotes } from "./sqlite.ts";

/**
 * The app's database: on PostgreSQL when `DATABASE_URL` is set, else on SQLite at `NOTES_DB`, a
 * fresh one in memory when that is unset.
 */
export const { store, database } = process.env.DATABASE_URL
  ? await postgresNotes(process.env.DATABASE_URL)
  : sqliteNotes(process.env.NOTES_DB ?? ":memory:");
