import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { integer, pgTable, serial, text } from "drizzle-orm/pg-core";
import { postgres, type DatabaseSource } from "livecmd";
import pg from "pg";
import type { NotesStore } from "./store.ts";

export const authors = pgTable("authors", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
});

export const notes = pgTable("notes", {
  id: serial("id").primaryKey(),
  authorId: integer("author_id")
    .notNull()
    .references(() => authors.id),
  title: text("title").notNull(),
  body: text("body").notNull().default(""),
});

const SCHEMA = /* sql */ `
  CREATE TABLE IF NOT EXISTS authors (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE IF NOT EXISTS notes (id serial PRIMARY KEY, author_id integer NOT NULL REFERENCES authors(id),
                                    title text NOT NULL, body text NOT NULL DEFAULT '');
  CREATE INDEX IF NOT EXISTS notes_by_author ON notes (author_id);
`;

const NOTE = { id: notes.id, author_id: notes.authorId, title: notes.title, body: notes.body };

/**
 * Drizzle on a node-postgres pool at `url`. livecmd is given the very pool Drizzle has
 * (`postgres(pool)`): every statement Drizzle sends in a command is watched row by row.
 */
export async function postgresNotes(
  url: string,
): Promise<{ store: NotesStore; database: DatabaseSource }> {
  const pool = new pg.Pool({ connectionString: url });
  await pool.query(SCHEMA);
  const orm = drizzle(pool);
  return {
    database: postgres(pool),
    store: {
      note: async (id) => (await orm.select(NOTE).from(notes).where(eq(notes.id, id)))[0],
      notesOf: (authorId) =>
        orm
          .select({ id: notes.id, title: notes.title })
          .from(notes)
          .where(eq(notes.authorId, authorId))
          .orderBy(notes.id),
      addAuthor: async (name) =>
        (await orm.insert(authors).values({ name }).returning({ id: authors.id }))[0]!,
      addNote: async (authorId, title) =>
        (await orm.insert(notes).values({ authorId, title }).returning({ id: notes.id }))[0]!,
      rename: async (id, title) =>
        (await orm.update(notes).set({ title }).where(eq(notes.id, id)).returning(NOTE))[0],
    },
  };
}
