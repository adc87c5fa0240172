import Database from "better-sqlite3";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { DatabaseSource } from "livecmd";
import type { NotesStore } from "./store.ts";

export const authors = sqliteTable("authors", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
});

export const notes = sqliteTable("notes", {
  id: integer("id").primaryKey(),
  authorId: integer("author_id")
    .notNull()
    .references(() => authors.id),
  title: text("title").notNull(),
  body: text("body").notNull().default(""),
});

const SCHEMA = /* sql */ `
  CREATE TABLE IF NOT EXISTS authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id),
                                    title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '');
  CREATE INDEX IF NOT EXISTS notes_by_author ON notes (author_id);
`;

const NOTE = { id: notes.id, author_id: notes.authorId, title: notes.title, body: notes.body };

/**
 * Drizzle on better-sqlite3 at `file`. livecmd is given the very connection Drizzle has
 * (`database`): every statement Drizzle runs in a command, a query prepared once included, is
 * watched row by row.
 */
export function sqliteNotes(file: string): { store: NotesStore; database: DatabaseSource } {
  const sqlite = new Database(file);
  sqlite.exec(SCHEMA);
  const orm = drizzle(sqlite);
  // Prepared once, as Drizzle apps do; each command run that executes it is watched.
  const noteById = orm
    .select(NOTE)
    .from(notes)
    .where(eq(notes.id, sql.placeholder("id")))
    .prepare();
  return {
    database: () => sqlite,
    store: {
      note: async (id) => noteById.get({ id }),
      notesOf: async (authorId) =>
        orm
          .select({ id: notes.id, title: notes.title })
          .from(notes)
          .where(eq(notes.authorId, authorId))
          .orderBy(notes.id)
          .all(),
      addAuthor: async (name) =>
        orm.insert(authors).values({ name }).returning({ id: authors.id }).get(),
      addNote: async (authorId, title) =>
        orm.insert(notes).values({ authorId, title }).returning({ id: notes.id }).get(),
      rename: async (id, title) =>
        orm.update(notes).set({ title }).where(eq(notes.id, id)).returning(NOTE).get(),
    },
  };
}
