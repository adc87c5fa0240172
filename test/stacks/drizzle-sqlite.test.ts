import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { anotherProcess, ERAS, unseenNotes, watchedNotes } from "../helpers/notesStack.ts";

// The example opens its database when first imported: on this file, on SQLite.
const folder = mkdtempSync(path.join(tmpdir(), "livecmd-drizzle-"));
const file = path.join(folder, "notes.sqlite");
process.env.NOTES_DB = file;
delete process.env.DATABASE_URL;
const { default: app, createNotesApp } = await import("../../examples/drizzle/app.ts");

describe("examples/drizzle on SQLite: Drizzle (drizzle-orm/better-sqlite3) on the better-sqlite3 handle livecmd was given", () => {
  after(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  for (const protocol of ERAS)
    test(`a watched note hears a write through Drizzle, ctx.db and another process, and no other (${protocol})`, () =>
      watchedNotes({ app, writeElsewhere: anotherProcess(file) }, protocol));

  test("given another connection than Drizzle's, it says the live command reads nothing it can see, and the harness sees it", async () => {
    const blind = createNotesApp(() => new Database(file));
    try {
      await unseenNotes(blind, "2026-07-28");
    } finally {
      await blind.close();
    }
  });
});
