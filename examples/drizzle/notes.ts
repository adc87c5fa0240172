import { command, type Int } from "livecmd";
import { store } from "./db.ts";
import type { Note, NoteTitle } from "./store.ts";

/**
 * A note, by id.
 * @param id The note's id, e.g. 1.
 * @minimum 1
 */
export const notes_show = command(
  { live: true, title: "Note" },
  async (_ctx, id: Int): Promise<Note> => {
    const note = await store.note(id);
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
  async (_ctx, author_id: Int): Promise<NoteTitle[]> => store.notesOf(author_id),
);

/**
 * Adds an author, and returns their id.
 * @param name The author's name.
 */
export const authors_create = command({}, async (_ctx, name: string): Promise<{ id: number }> =>
  store.addAuthor(name),
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
    store.addNote(author_id, title),
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
    const note = await store.rename(id, title);
    if (!note) throw new Error(`no note with id ${id}`);
    return note;
  },
);
