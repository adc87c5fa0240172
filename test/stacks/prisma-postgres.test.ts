import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { command, defineApp, postgres, type App } from "../../packages/livecmd/runtime/index.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import { root } from "../helpers/cli.ts";
import { generatedPostgresClient } from "../helpers/prismaClient.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

const MODELS = /* prisma */ `
model Note {
  id    Int    @id
  title String
  @@map("notes")
}
`;

interface Notes {
  note: {
    findFirst(query: { where: { id: number } }): Promise<unknown>;
    update(query: { where: { id: number }; data: { title: string } }): Promise<unknown>;
  };
  $disconnect(): Promise<void>;
}

describe(
  "Prisma 7 through @prisma/adapter-pg on the pg.Pool livecmd was given",
  { skip: server.skip },
  () => {
    const folder = path.join(root, ".tmp", `prisma-pg-${process.pid}`);
    let url: string;
    let pool: pg.Pool;
    let prisma: Notes;
    let app: App;

    before(async () => {
      const { PrismaClient } = (await import(generatedPostgresClient(folder, MODELS))) as {
        PrismaClient: new (options: { adapter: unknown }) => Notes;
      };
      url = await emptyDatabase(server.url!);
      psql(
        url,
        "CREATE TABLE notes (id integer PRIMARY KEY, title text NOT NULL); INSERT INTO notes VALUES (1, 'a'), (2, 'b');",
      );
      pool = new pg.Pool({ connectionString: url });
      prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
      const show = command({ live: true }, async (_ctx, id: number) =>
        prisma.note.findFirst({ where: { id } }),
      );
      app = defineApp({
        name: "notes",
        commands: { show },
        agent: { grant: [show] },
        database: postgres(pool),
      });
      await app.ready();
    });
    after(async () => {
      await app?.close();
      await prisma?.$disconnect();
      await pool?.end();
      rmSync(folder, { recursive: true, force: true });
    });

    test("a watched note hears a write through Prisma, ctx.db and psql, and a write to another note re-runs nothing", async () => {
      const live = new LiveRegistry(app, { onError: () => {} });
      const told: string[] = [];
      await live.add("show", [1], { uri: "notes://show/1", notify: (uri) => told.push(uri) });
      assert.deepEqual(live.unseen(), []);
      const settled = async () => {
        await app.db.caughtUp();
        await live.settled();
      };
      await prisma.note.update({ where: { id: 2 }, data: { title: "x" } });
      await app.db.run("UPDATE notes SET title = 'y' WHERE id = 2");
      psql(url, "UPDATE notes SET title = 'z' WHERE id = 2");
      await settled();
      assert.equal(live.stats().reruns, 0);
      await prisma.note.update({ where: { id: 1 }, data: { title: "one" } });
      await settled();
      await app.db.run("UPDATE notes SET title = 'uno' WHERE id = 1");
      await settled();
      psql(url, "UPDATE notes SET title = 'eins' WHERE id = 1");
      await settled();
      assert.deepEqual(told, ["notes://show/1", "notes://show/1", "notes://show/1"]);
      live.close();
    });
  },
);
