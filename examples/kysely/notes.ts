import { command, type Int } from "livecmd";
import { db } from "./db.ts";

export interface Note {
  id: number;
  author_id: number;
  title: string;
  body: string;
}

export interface NoteTitle {
  id: number;
  title: string;
}

/**
 * A note, by id.
 * @param id The note's id, e.g. 1.
 * @minimum 1
 */
export const notes_show = command(
  { live: true, title: "Note" },
  async (_ctx, id: Int): Promise<Note> => {
    const note = await db.selectFrom("notes").selectAll().where("id", "=", id).executeTakeFirst();
    if (!note) throw new Error(`no note with id ${id}`);
    return note;
  },
);

/**
 * An author's notes, oldest first.
 * @param author_id The author's id, e.g. 1.
 * @minimum 1
 */
export const notes_by_author = command(
  { live: true, title: "Notes of an author" },
  async (_ctx, author_id: Int): Promise<NoteTitle[]> =>
    db
      .selectFrom("notes")
      .select(["id", "title"])
      .where("author_id", "=", author_id)
      .orderBy("id")
      .execute(),
);

/**
 * Adds an author, and returns their id.
 * @param name The author's name.
 */
export const authors_create = command({}, async (_ctx, name: string): Promise<{ id: number }> =>
  db.insertInto("authors").values({ name }).returning("id").executeTakeFirstOrThrow(),
);

/**
 * Writes a note, and returns its id.
 * @param author_id The author's id, e.g. 1.
 * @minimum 1
 * @param title The note's title.
 */
export const notes_create = command(
  {},
  async (_ctx, author_id: Int, title: string): Promise<{ id: number }> =>
    db.insertInto("notes").values({ author_id, title }).returning("id").executeTakeFirstOrThrow(),
);

/**
 * Renames a note.
 * @param id The note's id, e.g. 1.
 * @minimum 1
 * @param title The new title.
 */
export const notes_rename = command(
  { annotations: { idempotentHint: true } },
  async (_ctx, id: Int, title: string): Promise<Note> => {
    const note = await db
      .updateTable("notes")
      .set({ title })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
    if (!note) throw new Error(`no note with id ${id}`);
    return note;
  },
);
