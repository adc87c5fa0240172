import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { defineApp, type App } from "../../packages/livecmd/runtime/model/app.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import type { PostgresDatabase } from "../../packages/livecmd/runtime/db/postgres/postgresDatabase.ts";
import { PostgresSpentConfirmations } from "../../packages/livecmd/runtime/db/postgres/sessions/spentConfirmations.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

describe(
  "a yes is spent once on one PostgreSQL, however many processes see it",
  { skip: server.skip },
  () => {
    let url: string;
    /** Two apps on one database: two replicas' connections. */
    const apps: App[] = [];
    const ledgers: PostgresSpentConfirmations[] = [];

    before(async () => {
      url = await emptyDatabase(server.url!);
      for (const name of ["one", "two"]) {
        const app = defineApp({
          name,
          commands: {},
          agent: { grant: [] },
          database: postgres(url),
        });
        await app.ready();
        apps.push(app);
        ledgers.push(new PostgresSpentConfirmations(() => engineOf(app).db as PostgresDatabase));
      }
    });
    after(async () => {
      for (const app of apps) await app.close();
    });

    test("the same id spent by both at once: exactly one of them gets it", async () => {
      for (let round = 0; round < 20; round++) {
        const id = randomUUID();
        const expiresAt = Date.now() + 60_000;
        const spent = await Promise.all(ledgers.map((ledger) => ledger.spend(id, expiresAt)));
        assert.deepEqual(
          spent.filter(Boolean).length,
          1,
          `round ${round}: ${JSON.stringify(spent)}`,
        );
      }
    });

    test("an id is kept until it expires, then its row goes with the next spend", async () => {
      const [one, two] = ledgers as [PostgresSpentConfirmations, PostgresSpentConfirmations];
      const expired = randomUUID();
      assert.equal(await one.spend(expired, Date.now() - 1000), true);
      assert.equal(await two.spend(randomUUID(), Date.now() + 60_000), true);
      assert.equal(
        psql(url, `SELECT count(*) FROM livecmd.spent_confirmations WHERE id = '${expired}'`),
        "0",
      );
    });
  },
);
