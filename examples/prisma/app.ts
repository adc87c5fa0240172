import { defineApp, type App, type DatabaseSource } from "livecmd";
import { database } from "./db.ts";
import * as notes from "./notes.ts";
import catalog from "./generated/catalog.json" with { type: "json" };
import { templates } from "./generated/templates.ts";

/**
 * A notes app whose commands read and write with Prisma. It gives livecmd what Prisma connects
 * through (`database`: the pg.Pool of Prisma's adapter, or the SQLite adapter shared by
 * `prisma(...)`), and nothing else changes: every note an agent watches is re-run when a write,
 * through Prisma, `ctx.db`, another process or `psql`, changes a row it read.
 * (`database` is a parameter only so that a test can give another connection, which livecmd
 * then says it cannot see through.)
 */
export function createNotesApp(source: DatabaseSource = database): App {
  return defineApp({
    name: "notes",
    commands: { ...notes },
    agent: {
      grant: [
        notes.notes_show,
        notes.notes_by_author,
        notes.authors_create,
        notes.notes_create,
        notes.notes_rename,
      ],
    },
    database: source,
    generated: { catalog, templates },
  });
}

export default createNotesApp();
