/** What `livecmd init` writes: a one-table SQLite app, and a tsconfig that compiles it for plain Node. */

/**
 * The SQLite driver the starter app opens its file with: Node's own `node:sqlite` where this Node
 * has it unflagged (22.13+, 23.4+, 24), so nothing native is installed or compiled; better-sqlite3
 * (v12) elsewhere. livecmd reads both the same way.
 */
export type StarterDriver = "node:sqlite" | "better-sqlite3";

export function starterDriver(version = process.versions.node): StarterDriver {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const unflagged = major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
  return unflagged ? "node:sqlite" : "better-sqlite3";
}

/** What each driver's starter writes: its import, and how it opens and seeds the file. */
const OPEN_WITH: Record<StarterDriver, { import: string; type: string; open: string }> = {
  "node:sqlite": {
    import: 'import { DatabaseSync } from "node:sqlite";',
    type: "DatabaseSync",
    open: "new DatabaseSync(path)",
  },
  "better-sqlite3": {
    import: 'import BetterSqlite3 from "better-sqlite3";',
    type: "BetterSqlite3.Database",
    open: "new BetterSqlite3(path)",
  },
};

/** `src/app.ts`: one live command an agent can read and watch, and one write that changes it. */
export function starterApp(scheme: string, driver: StarterDriver): string {
  const sqlite = OPEN_WITH[driver];
  return `${sqlite.import}
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

function openDatabase(path: string): ${sqlite.type} {
  const db = ${sqlite.open};
  // Two processes opening the file at once (a server and a script) wait for each other.
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)");
  db.prepare("INSERT OR IGNORE INTO notes (id, title, body) VALUES (1, 'Welcome', 'Ask your agent to keep an eye on this note.')").run();
  return db;
}
`;
}

/**
 * A tsconfig for a project that has none: strict, ES modules, compiled to dist/ for plain Node.
 * Libraries' own declaration files go unchecked, as with `tsc --init`: drizzle-orm's name the
 * drivers of every database it supports, and fail a check of an app that installs one.
 */
export const STARTER_TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      resolveJsonModule: true,
      strict: true,
      skipLibCheck: true,
      outDir: "dist",
      rootDir: "src",
      types: ["node"],
    },
    include: ["src"],
  },
  null,
  2,
)}\n`;
