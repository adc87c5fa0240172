/**
 * Issue 45: observing the app's own pg.Pool when more command runs overlap than it has
 * connections. Per read, Drizzle on the pool livecmd was given against Drizzle on a pool of the
 * same size livecmd was never given, with four runs waiting for each connection.
 *
 *   npx tsx bench/saturatedPool.bench.ts        # prints this row alone, writes nothing
 */
import { pathToFileURL } from "node:url";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { integer, pgTable, text } from "drizzle-orm/pg-core";
import pg from "pg";
import { command, defineApp, postgres } from "../packages/livecmd/runtime/index.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import { engineOf } from "../packages/livecmd/runtime/model/attachedEngine.ts";
import { emptyDatabase, postgresServer, psql } from "../test/helpers/postgres.ts";
import { runAlone } from "./read.bench.ts";
import { figureOf, ratio, type BenchModule, type Figure, type Section } from "./lib/section.ts";

const TICKETS = 10_000;
const CONNECTIONS = 4;
/** Runs at once: four for each connection. */
const RUNS = CONNECTIONS * 4;
const READS_PER_RUN = 25;
const ROUNDS = 20;
const STEPS_PER_ROUND = 10;

const tickets = pgTable("tickets", {
  id: integer("id").primaryKey(),
  title: text("title"),
});

const KINDS = ["observed", "unobserved"] as const;
type Kind = (typeof KINDS)[number];

/** `RUNS` runs at once, each reading `READS_PER_RUN` tickets by id through `kind`'s pool; µs per read. */
async function batch(
  run: (kind: Kind, first: number) => Promise<unknown>,
  kind: Kind,
  step: number,
) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: RUNS }, (_, n) => run(kind, (step * RUNS + n) * READS_PER_RUN)),
  );
  return ((performance.now() - started) * 1000) / (RUNS * READS_PER_RUN);
}

export const saturatedPoolBench: BenchModule = {
  async run(context): Promise<Section> {
    const server = postgresServer();
    if (server.skip) throw new Error(server.skip);
    const url = await emptyDatabase(server.url!);
    psql(
      url,
      `CREATE TABLE tickets (id integer PRIMARY KEY, title text);
       INSERT INTO tickets SELECT g, 'ticket ' || g FROM generate_series(1, ${TICKETS}) g;`,
    );
    const given = new pg.Pool({ connectionString: url, max: CONNECTIONS });
    const other = new pg.Pool({ connectionString: url, max: CONNECTIONS });
    const orms = { observed: drizzle(given), unobserved: drizzle(other) };
    const read = command({}, async (_ctx, kind: Kind, first: number) => {
      for (let n = first; n < first + READS_PER_RUN; n++)
        await orms[kind]
          .select()
          .from(tickets)
          .where(eq(tickets.id, (n % TICKETS) + 1));
    });
    const app = defineApp({
      name: "saturated",
      commands: { read },
      agent: { grant: [read] },
      database: postgres(given),
    });
    const observer = { read: () => {}, sawPrincipal: () => {} };
    const run = (kind: Kind, first: number) =>
      engineOf(app).run("read", [kind, first], { origin: Origin.Agent, observer });
    try {
      await app.ready();
      context.log("saturated-pool: per read");
      for (const kind of KINDS) for (let warm = 0; warm < 3; warm++) await batch(run, kind, warm);
      const samples = new Map<Kind, number[]>(KINDS.map((kind) => [kind, []]));
      const rounds = new Map<Kind, number[]>(KINDS.map((kind) => [kind, []]));
      for (let round = 0; round < ROUNDS; round++) {
        const times = new Map<Kind, number[]>(KINDS.map((kind) => [kind, []]));
        for (let step = 0; step < STEPS_PER_ROUND; step++)
          for (let turn = 0; turn < KINDS.length; turn++) {
            const kind = KINDS[(step + turn) % KINDS.length]!;
            times.get(kind)!.push(await batch(run, kind, round * STEPS_PER_ROUND + step));
          }
        for (const kind of KINDS) {
          samples.get(kind)!.push(...times.get(kind)!);
          rounds.get(kind)!.push(figureOf(kind, "µs", times.get(kind)!).median);
        }
      }
      const figures: Figure[] = KINDS.map((kind) =>
        figureOf(
          `Drizzle on the pool ${kind === "observed" ? "livecmd was given" : "livecmd was never given"}: a ticket by id`,
          "µs",
          samples.get(kind)!,
          rounds.get(kind),
        ),
      );
      return {
        title:
          "Your pool, saturated: Drizzle on the app's own pg.Pool with four runs waiting for each connection (issue 45)",
        method: [
          `A PostgreSQL table of ${TICKETS} tickets; two pg.Pools of ${CONNECTIONS} connections each, one given to livecmd (\`postgres(pool)\`), one it was never given; Drizzle (drizzle-orm/node-postgres) on each.`,
          `A step starts ${RUNS} command runs at once (as watched re-runs: an observer, through the middleware), each reading ${READS_PER_RUN} tickets by id one after another through one pool's Drizzle, so ${RUNS / CONNECTIONS} runs wait for each connection; per read is the step's time over its ${RUNS * READS_PER_RUN} reads.`,
          `${ROUNDS} rounds of ${STEPS_PER_ROUND} steps, each step once on each pool, a different pool first each step; the ratio is the median of per-round ratios.`,
        ],
        figures,
        comparisons: [
          ratio("observed / never given, per read, pool saturated", figures[0]!, figures[1]!, {
            op: "<=",
            value: 1.1,
          }),
        ],
        notes: [
          "Each statement's plan is read once per statement text (EXPLAIN on the connection it goes to) and cached: what a read costs after that is binding its key and telling the run, and the async context a waiting caller is bound to.",
        ],
      };
    } finally {
      await app.close();
      await Promise.all([given.end(), other.end()]);
    }
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(saturatedPoolBench);
