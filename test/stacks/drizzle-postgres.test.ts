import { after, before, describe, test } from "node:test";
import type { App } from "../../packages/livecmd/runtime/index.ts";
import { postgres } from "../../packages/livecmd/runtime/db/postgres/postgres.ts";
import { ERAS, psqlOn, unseenNotes, watchedNotes } from "../helpers/notesStack.ts";
import { emptyDatabase, postgresServer } from "../helpers/postgres.ts";

// The example opens its database when first imported: a fresh one, on PostgreSQL.
const server = postgresServer();
const url = server.url && (await emptyDatabase(server.url));
if (url) process.env.DATABASE_URL = url;
const example = url ? await import("../../examples/drizzle/app.ts") : undefined;

describe(
  "examples/drizzle on PostgreSQL: Drizzle (drizzle-orm/node-postgres) on the pg.Pool livecmd was given",
  { skip: server.skip },
  () => {
    let app: App;
    before(async () => {
      app = example!.default;
      await app.ready();
    });
    after(() => app.close());

    for (const protocol of ERAS)
      test(`a watched note hears a write through Drizzle, ctx.db and psql, and no other (${protocol})`, () =>
        watchedNotes({ app, writeElsewhere: psqlOn(url!) }, protocol));

    test("given a pool of livecmd's own rather than Drizzle's, it says the live command reads nothing it can see, and the harness sees it", async () => {
      const blind = example!.createNotesApp(postgres(url!));
      try {
        await blind.ready();
        await unseenNotes(blind, "2025-11-25");
      } finally {
        await blind.close();
      }
    });
  },
);
