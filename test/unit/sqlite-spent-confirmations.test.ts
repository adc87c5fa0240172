import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import type { StoredSpentConfirmations } from "../../packages/livecmd/runtime/db/sharedState.ts";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { SQLITE_DRIVERS } from "../helpers/sqliteDrivers.ts";

for (const driver of SQLITE_DRIVERS)
  describe(
    `a yes is spent once in a SQLite file, whichever connection to it sees it (${driver.name})`,
    { skip: driver.skip },
    () => {
      const folder = mkdtempSync(path.join(tmpdir(), "livecmd-spent-"));
      const file = path.join(folder, "app.sqlite");
      /** Two apps on one file: two processes' connections. */
      const apps = ["one", "two"].map((name) =>
        defineApp({ name, commands: {}, agent: { grant: [] }, database: () => driver.open(file) }),
      );
      const ledgers = apps.map((app) => engineOf(app).spentConfirmations()!) as [
        StoredSpentConfirmations,
        StoredSpentConfirmations,
      ];
      after(async () => {
        for (const app of apps) await app.close();
        rmSync(folder, { recursive: true, force: true });
      });

      test("an id spent through one connection is spent for the other", async () => {
        const [one, two] = ledgers;
        const id = randomUUID();
        assert.equal(await one.spend(id, Date.now() + 60_000), true);
        assert.equal(await two.spend(id, Date.now() + 60_000), false);
        assert.equal(await one.spend(id, Date.now() + 60_000), false);
      });

      test("an id is kept until it expires, then its row goes with the next spend", async () => {
        const [one, two] = ledgers;
        const expired = randomUUID();
        assert.equal(await one.spend(expired, Date.now() - 1000), true);
        assert.equal(await two.spend(randomUUID(), Date.now() + 60_000), true);
        const left = driver.open(file);
        try {
          const row = left
            .prepare("SELECT count(*) AS n FROM livecmd_spent_confirmations WHERE id = ?")
            .get(expired);
          assert.deepEqual({ ...(row as object) }, { n: 0 });
        } finally {
          left.close();
        }
      });

      test("a read-only file keeps none (the server keeps them in memory then)", async () => {
        const empty = path.join(folder, "empty.sqlite");
        driver.open(empty).close();
        const readOnly = defineApp({
          name: "read-only",
          commands: {},
          agent: { grant: [] },
          database: () => driver.open(empty, { readOnly: true }),
        });
        try {
          assert.equal(engineOf(readOnly).spentConfirmations(), undefined);
        } finally {
          await readOnly.close();
        }
      });
    },
  );
