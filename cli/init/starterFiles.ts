/** What `livecmd init` writes: a one-table SQLite app, and a tsconfig that compiles it for plain Node. */

/** `src/app.ts`: one live command an agent can read and watch, and one write that changes it. */
export function starterApp(scheme: string): string {
  return `import BetterSqlite3 from "better-sqlite3";
import { command, defineApp, type Int } from "livecmd";
import catalog from "./generated/catalog.json" with { type: "json" };
import { templates } from "./generated/templates.js";

export interface Note {
  id: Int;
  title: string;
  body: string;
}

/**
 * One note by id.
 * @param id The note's id, e.g. 1.
 */
export const notes_show = command({ live: true, title: "Note" }, async (ctx, id: Int): Promise<Note> => {
  const note = await ctx.db.get<Note>("SELECT id, title, body FROM notes WHERE id = ?", id);
  if (!note) throw new Error(\`no note with id \${id}\`);
  return note;
});

/** Changes a note's body and returns the note; agents watching it are told. */
export const notes_edit = command({}, async (ctx, id: Int, body: string): Promise<Note> => {
  const { changes } = await ctx.db.run("UPDATE notes SET body = ? WHERE id = ?", body, id);
  if (changes === 0) throw new Error(\`no note with id \${id}\`);
  return (await ctx.db.get<Note>("SELECT id, title, body FROM notes WHERE id = ?", id))!;
});

export default defineApp({
  name: ${JSON.stringify(scheme)},
  commands: { notes_show, notes_edit },
  agent: { grant: [notes_show, notes_edit] },
  database: () => openDatabase(process.env.NOTES_DB ?? "notes.sqlite"),
  generated: { catalog, templates },
});

function openDatabase(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path);
  db.exec("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)");
  db.prepare("INSERT OR IGNORE INTO notes (id, title, body) VALUES (1, 'Welcome', 'Ask your agent to keep an eye on this note.')").run();
  return db;
}
`;
}

/** A tsconfig for a project that has none: strict, ES modules, compiled to dist/ for plain Node. */
export const STARTER_TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      resolveJsonModule: true,
      strict: true,
      outDir: "dist",
      rootDir: "src",
      types: ["node"],
    },
    include: ["src"],
  },
  null,
  2,
)}\n`;
