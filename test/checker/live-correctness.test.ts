import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { root, run, type CliRun } from "../helpers/cli.ts";
import { postgresServer, psql } from "../helpers/postgres.ts";
import { DATABASES, TARGETS } from "./soak.ts";

/**
 * The live-correctness checker's short run on every target (the example shop through ctx.db;
 * Drizzle, Kysely and Prisma on the handle livecmd was given) and both databases: watchers of
 * both eras and the watch tool, writers of every kind, storms and cancelled reads at once, more
 * runs than the pool has connections; then every watcher must have been told every change.
 * `LIVECMD_CHECK_SEED` picks the seed (the one each run printed replays its schedule), and
 * `npm run soak` is the long run. Then livecmd broken on purpose, which the checker must catch.
 */
const SEED = Number(process.env.LIVECMD_CHECK_SEED ?? 20261206);
const ROUNDS = 24;

const server = postgresServer();
const SOAK = path.join(root, "test/checker/soak.ts");

function soak(args: readonly string[]): Promise<CliRun> {
  return run(process.execPath, [...process.execArgv, SOAK, ...args], {
    cwd: root,
    env: { ...process.env, ...(server.url && { DATABASE_URL: server.url }) },
    timeoutMs: 240_000,
  });
}

const skipOn = (database: (typeof DATABASES)[number]) =>
  database === "postgres" ? server.skip : undefined;

for (const database of DATABASES)
  describe(
    `the live-correctness checker on ${database}, seed ${SEED}, ${ROUNDS} rounds`,
    { skip: skipOn(database) },
    () => {
      for (const target of TARGETS)
        test(`${target}: every watcher converges on what a fresh read returns, and is told of every change`, async (t) => {
          const ran = await soak([
            "--one",
            `--target=${target}`,
            `--database=${database}`,
            `--seed=${SEED}`,
            `--rounds=${ROUNDS}`,
          ]);
          t.diagnostic(ran.stdout.trim());
          assert.equal(ran.code, 0, `${ran.stdout}${ran.stderr}`);
          assert.match(ran.stdout, /every property held/);
        });
    },
  );

const logical = server.url !== undefined && psql(server.url, "SHOW wal_level") === "logical";
const busSkip = server.skip ?? (logical ? false : "wal_level is not logical");

describe(
  `the live-correctness checker on postgres with a bus, across 3 processes, seed ${SEED}, ${ROUNDS} rounds`,
  { skip: busSkip },
  () => {
    test("shop: every watcher, whichever process serves it, converges and is told of every change", async (t) => {
      const ran = await soak([
        "--one",
        "--target=shop",
        "--database=postgres",
        `--seed=${SEED}`,
        `--rounds=${ROUNDS}`,
        "--bus=2",
      ]);
      t.diagnostic(ran.stdout.trim());
      assert.equal(ran.code, 0, `${ran.stdout}${ran.stderr}`);
      assert.match(ran.stdout, /on a bus across 3 processes: .*every property held/);
    });
  },
);

/** Each fault of faults.ts, where the checker is to catch it, and in how many short runs at most. */
const CAUGHT = [
  { fault: "unbound", target: "drizzle", database: "postgres", seeds: 5, bus: 0 },
  { fault: "misattribute", target: "shop", database: "sqlite", seeds: 5, bus: 0 },
  { fault: "unrouted", target: "shop", database: "postgres", seeds: 5, bus: 2 },
] as const;

describe("livecmd broken on purpose: the checker catches it", () => {
  for (const { fault, target, database, seeds, bus } of CAUGHT)
    test(
      `${fault} (faults.ts), on ${target}/${database}${bus ? " on a bus" : ""}, within ${seeds} runs`,
      { skip: bus ? busSkip : skipOn(database) },
      async (t) => {
        const ran = await soak([
          `--break=${fault}`,
          `--target=${target}`,
          `--database=${database}`,
          `--seed=${SEED}`,
          `--seeds=${seeds}`,
          `--rounds=${ROUNDS}`,
          `--bus=${bus}`,
        ]);
        t.diagnostic(ran.stdout.trim().split("\n").at(-1)!);
        assert.equal(ran.code, 0, `not caught: ${ran.stdout}${ran.stderr}`);
        assert.match(ran.stdout, new RegExp(`the checker caught ${fault}`));
      },
    );
});
