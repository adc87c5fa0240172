import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import type { App, DatabaseSource } from "../../packages/livecmd/runtime/index.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { anotherProcess, ERAS, psqlOn, unseenNotes, watchedNotes } from "./notesStack.ts";
import { emptyDatabase, postgresServer } from "./postgres.ts";

/**
 * The suites of test/stacks/ that hold each notes app of examples/ to notesStack.ts, one file per
 * example and database. Each example opens its database when first imported, so each suite
 * points it at a fresh one first.
 */
export interface NotesExample {
  /** The folder under examples/. */
  name: "drizzle" | "kysely" | "prisma";
  /** The library, as the tests' names say it ("Drizzle"). */
  library: string;
  /** How the library reaches the handle livecmd was given, for the suite's name. */
  handle: string;
}

interface ExampleModule {
  default: App;
  createNotesApp(source: DatabaseSource): App;
}

const load = ({ name }: NotesExample) =>
  import(`../../examples/${name}/app.ts`) as Promise<ExampleModule>;

/** The example on a fresh SQLite file, written by it, by `ctx.db` and by another process. */
export async function notesOnSqlite(example: NotesExample): Promise<void> {
  const folder = mkdtempSync(path.join(tmpdir(), `livecmd-${example.name}-`));
  const file = path.join(folder, "notes.sqlite");
  process.env.NOTES_DB = file;
  delete process.env.DATABASE_URL;
  const { default: app, createNotesApp } = await load(example);

  describe(`examples/${example.name} on SQLite: ${example.handle}`, () => {
    after(async () => {
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    });

    for (const protocol of ERAS)
      test(`a watched note hears a write through ${example.library}, ctx.db and another process, and no other (${protocol})`, () =>
        watchedNotes({ app, writeElsewhere: anotherProcess(file) }, protocol));

    test(`given another connection than ${example.library}'s, it says the live command reads nothing it can see, and the harness sees it`, async () => {
      const blind = createNotesApp(() => new Database(file));
      try {
        await unseenNotes(blind, "2026-07-28");
      } finally {
        await blind.close();
      }
    });
  });
}

/** The example on a fresh PostgreSQL database, written by it, by `ctx.db` and by `psql`. */
export async function notesOnPostgres(example: NotesExample): Promise<void> {
  const server = postgresServer();
  const url = server.url && (await emptyDatabase(server.url));
  if (url) process.env.DATABASE_URL = url;
  const loaded = url ? await load(example) : undefined;

  describe(
    `examples/${example.name} on PostgreSQL: ${example.handle}`,
    { skip: server.skip },
    () => {
      let app: App;
      before(async () => {
        app = loaded!.default;
        await app.ready();
      });
      after(() => app.close());

      for (const protocol of ERAS)
        test(`a watched note hears a write through ${example.library}, ctx.db and psql, and no other (${protocol})`, () =>
          watchedNotes({ app, writeElsewhere: psqlOn(url!) }, protocol));

      test(`given a pool of livecmd's own rather than ${example.library}'s, it says the live command reads nothing it can see, and the harness sees it`, async () => {
        const blind = loaded!.createNotesApp(postgres(url!));
        try {
          await blind.ready();
          await unseenNotes(blind, "2025-11-25");
        } finally {
          await blind.close();
        }
      });
    },
  );
}
