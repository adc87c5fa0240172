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

/** The queries the commands make, written with Drizzle for each database (`sqlite.ts`, `postgres.ts`). */
export interface NotesStore {
  note(id: number): Promise<Note | undefined>;
  notesOf(authorId: number): Promise<NoteTitle[]>;
  addAuthor(name: string): Promise<{ id: number }>;
  addNote(authorId: number, title: string): Promise<{ id: number }>;
  rename(id: number, title: string): Promise<Note | undefined>;
}
