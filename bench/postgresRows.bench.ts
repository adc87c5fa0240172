/**
 * Issue 19: row-level live updates on PostgreSQL. The example app on one database, 4 child
 * processes (`bench/peers/pgWatcher.ts`) each watching 1,000 `customers_show` URIs, writes of one
 * customer at a time made here: re-runs per write and commit → notify, with row matching (each
 * watched read keyed on its customer) and with table matching (every reader of customers
 * re-runs, as before), in the same run.
 *
 *   npm run bench -- postgres-rows         # this row alone, printed, nothing written
 *   npx tsx bench/postgresRows.bench.ts    # the same
 */
import { pathToFileURL } from "node:url";
import { createExampleApp } from "../example/app.ts";
import type { Matching } from "../packages/livecmd/runtime/live/readSet.ts";
import { emptyDatabase, postgresServer } from "../test/helpers/postgres.ts";
import { childWatcher, measureWrites, type WriteBlock } from "./postgres.bench.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  percentile,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

const PROCESSES = 4;
const WATCHED = 1000;
/**
 * Writes per matching: table matching re-runs 4,000 reads (12,000 statements) per write on the
 * machine's 2 shared cores, seconds a write, so it gets fewer.
 */
const WRITES: Record<Matching, number> = { rows: 200, tables: 10 };

export const postgresRowsBench: BenchModule = {
  async run(context) {
    const server = postgresServer();
    if (server.skip) throw new Error(`the postgres-rows bench needs PostgreSQL: ${server.skip}`);
    process.env.DATABASE_URL = await emptyDatabase(server.url!);
    // The change feed's connection holds no process open by itself, and this one only waits on it.
    const alive = setInterval(() => {}, 60_000);
    const app = createExampleApp();
    await app.db.get("SELECT 1"); // creates and seeds the schema before anything is timed
    const blocks = {} as Record<Matching, WriteBlock>;
    for (const matching of ["rows", "tables"] as const) {
      context.log(
        `postgres-rows: ${PROCESSES} processes x ${WATCHED} subscriptions, ${matching} matching, ${WRITES[matching]} writes`,
      );
      const children = await Promise.all(
        Array.from({ length: PROCESSES }, () =>
          childWatcher(process.env.DATABASE_URL!, WATCHED, matching),
        ),
      );
      const name = `${PROCESSES} processes x ${WATCHED} subscriptions, ${matching} matching`;
      blocks[matching] = await measureWrites(
        app,
        { watched: WATCHED, writes: WRITES[matching], name },
        children,
      );
      await Promise.all(children.map((child) => child.stop()));
    }
    await app.close();
    clearInterval(alive);
    return section(blocks);
  },
};

function section(blocks: Record<Matching, WriteBlock>): Section {
  const figures: Figure[] = [];
  const comparisons: Comparison[] = [];
  const p99 = {} as Record<Matching, Figure>;
  for (const matching of ["rows", "tables"] as const) {
    const { samples, rerunsPerWrite } = blocks[matching];
    const all = figureOf(`commit → notify, ${matching} matching`, "ms", samples);
    p99[matching] = {
      ...all,
      label: `p99, ${matching} matching`,
      median: percentile(samples, 0.99),
    };
    figures.push(all);
    comparisons.push(
      {
        label: `postgres re-runs per write, ${PROCESSES} processes x ${WATCHED} show URIs, ${matching} matching`,
        value: rerunsPerWrite,
        unit: "x",
        ...(matching === "rows" && { target: { op: "<=", value: PROCESSES } }),
      },
      {
        label: `postgres commit → notify p99, ${PROCESSES} processes x ${WATCHED} show URIs, ${matching} matching`,
        value: p99[matching].median,
        unit: "ms",
      },
    );
  }
  // Table over row matching: how many times what a write costs the row matching spares.
  comparisons.push(
    {
      label: "postgres re-runs per write: tables / rows matching",
      value: blocks.tables.rerunsPerWrite / blocks.rows.rerunsPerWrite,
      unit: "x",
    },
    ratio("postgres commit → notify p99: tables / rows matching", p99.tables, p99.rows),
  );
  return {
    title: "PostgreSQL: a write re-runs what read its row, across processes",
    method: [
      `One database on a local PostgreSQL (unix socket), the example app's schema and seed; ${PROCESSES} child processes (\`bench/peers/pgWatcher.ts\`), each with its own \`LiveRegistry\` watching \`customers_show/1..${WATCHED}\` (three statements a run, each keyed on the customer: customers by id, orders, tags and attributes by customer_id).`,
      `Writes: \`app.run("customers_rename", [id, name])\` from this process, one at a time, on the watched ids in turn; each waits until every child has told the subscriber of the renamed URI. ${WRITES.rows} writes with row matching, then ${WRITES.tables} with table matching (\`LiveRegistry\`'s \`matching: "tables"\`, what livecmd did before: every reader of customers re-runs), new children for each.`,
      "Commit → notify: from the write's return (autocommit) to the notify call in the child, on the wall clock; one sample per write per child. Re-runs per write: the children's `stats().reruns` over the block, summed, / writes.",
    ],
    figures,
    comparisons,
    notes: [
      `Table matching gets ${WRITES.tables} writes (${WRITES.tables * PROCESSES} samples, so its p99 is close to its maximum): each costs up to ${PROCESSES * WATCHED} re-runs on the 2 shared cores; fewer are counted when the next write arrives while a child still re-runs (coalesced into one).`,
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(postgresRowsBench);
