import BetterSqlite3 from "better-sqlite3";
import { command, defineApp, int, type App, type Database, type Int } from "livecmd";
import catalog from "./generated/catalog.json" with { type: "json" };
import { templates } from "./generated/templates.ts";

export interface Bookmark {
  id: Int;
  url: string;
  title: string;
  tag: string;
}

/**
 * One bookmark by id.
 * @param id The bookmark's id, e.g. 1.
 */
export const bookmarks_show = command(
  { live: true, title: "Bookmark" },
  async (ctx, id: Int): Promise<Bookmark> => {
    const bookmark = await bookmarkById(ctx.db, id);
    if (!bookmark) throw new Error(`no bookmark with id ${id}`);
    return bookmark;
  },
);

/**
 * The bookmarks with a tag, newest first.
 * @param tag The tag, e.g. "reading".
 */
export const bookmarks_tagged = command(
  { live: true, title: "Bookmarks by tag" },
  async (ctx, tag: string): Promise<Bookmark[]> =>
    ctx.db.all<Bookmark>(
      "SELECT id, url, title, tag FROM bookmarks WHERE tag = ? ORDER BY id DESC",
      tag,
    ),
);

export interface NewBookmark {
  /**
   * What it points at.
   * @format uri
   */
  url: string;
  /**
   * Not blank.
   * @pattern \S
   */
  title: string;
  /** "unread" when absent. */
  tag?: string;
}

/** Saves a bookmark and returns it; agents watching its tag are told. */
export const bookmarks_add = command({}, async (ctx, bookmark: NewBookmark): Promise<Bookmark> => {
  const { lastInsertRowid } = await ctx.db.run(
    "INSERT INTO bookmarks (url, title, tag) VALUES (?, ?, ?)",
    bookmark.url,
    bookmark.title,
    bookmark.tag ?? "unread",
  );
  return (await bookmarkById(ctx.db, int(Number(lastInsertRowid))))!;
});

/**
 * Moves a bookmark to another tag and returns it.
 * @param id The bookmark's id, e.g. 1.
 * @param tag The new tag, e.g. "read".
 */
export const bookmarks_retag = command({}, async (ctx, id: Int, tag: string): Promise<Bookmark> => {
  await ctx.db.run("UPDATE bookmarks SET tag = ? WHERE id = ?", tag, id);
  const bookmark = await bookmarkById(ctx.db, id);
  if (!bookmark) throw new Error(`no bookmark with id ${id}`);
  return bookmark;
});

/** The bookmarks app, its data in the SQLite file at `databasePath` (`:memory:`: a fresh one). */
export function createBookmarksApp(databasePath: string): App {
  return defineApp({
    name: "bookmarks",
    commands: { bookmarks_show, bookmarks_tagged, bookmarks_add, bookmarks_retag },
    agent: { grant: [bookmarks_show, bookmarks_tagged, bookmarks_add, bookmarks_retag] },
    database: () => openBookmarks(databasePath),
    generated: { catalog, templates },
  });
}

function bookmarkById(db: Database, id: Int): Promise<Bookmark | undefined> {
  return db.get<Bookmark>("SELECT id, url, title, tag FROM bookmarks WHERE id = ?", id);
}

function openBookmarks(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path);
  // The server and a script opening the file at once wait for each other.
  db.pragma("busy_timeout = 5000");
  db.exec(`
    CREATE TABLE IF NOT EXISTS bookmarks (
      id INTEGER PRIMARY KEY,
      url TEXT NOT NULL,
      title TEXT NOT NULL,
      tag TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS bookmarks_by_tag ON bookmarks (tag, id);
    INSERT INTO bookmarks (url, title, tag)
      SELECT 'https://modelcontextprotocol.io', 'Model Context Protocol', 'reading'
      WHERE NOT EXISTS (SELECT 1 FROM bookmarks);
  `);
  return db;
}
