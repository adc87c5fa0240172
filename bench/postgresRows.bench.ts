/**
 * Issue 19: row-level live updates on PostgreSQL. The example app on one database, 4 child
 * processes (`bench/peers/pgWatcher.ts`) each watching 1,000 `customers_show` URIs, writes of one
 * customer at a time made here: re-runs per write and commit → notify, with row matching (each
 * watched read keyed on its customer) and with table matching (every reader of customers
 * re-runs, as before), in the same run. Issue 34: 10,000 watched schedules joined to their
 * patients and 10,000 watched "orders over N", in this process (bench/lib/clinicWatches.ts);
 * 10,000 watched pages (`ORDER BY ... LIMIT`) and inserts past every page's last row.
 *
 *   npm run bench -- postgres-rows         # this row alone, printed, nothing written
 *   npx tsx bench/postgresRows.bench.ts    # the same
 */
import { pathToFileURL } from "node:url";
import { createExampleApp } from "../example/app.ts";
import { postgres } from "../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import { clinicSeed, scenarioApp, SCHEMA } from "../test/helpers/liveScenarios.ts";
import {
  joinedLists,
  overThresholds,
  type JoinedLists,
  type Thresholds,
} from "./lib/clinicWatches.ts";
import type { Matching } from "../packages/livecmd/runtime/live/readSet.ts";
import { emptyDatabase, postgresServer, psql } from "../test/helpers/postgres.ts";
import { childWatcher, measureWrites, type WriteBlock } from "./postgres.bench.ts";
import { runAlone } from "./read.bench.ts";
import { ledgerApp, pageFigures, type Pages } from "./lib/ledgerPages.ts";
import {
  figureOf,
  median,
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
/** Issue 34: watched schedules (each joined to its 4 patients), and watched thresholds. */
const LISTS = 10_000;
const LIST_WRITES: Record<Matching, number> = { rows: 100, tables: 2 };
const THRESHOLD_WATCHES = 10_000;
const THRESHOLD_WRITES: Record<Matching, number> = { rows: 20, tables: 2 };
/** Issue 34's pages: watched "the 10 smallest amounts from N on", and inserts past every page. */
const PAGES = 10_000;
const PAGE_WRITES: Record<Matching, number> = { rows: 20, tables: 2 };

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
    const clinic = await clinicFigures(server.url!, context.log);
    const pages = await ledgerPages(server.url!, context.log);
    clearInterval(alive);
    return section(blocks, { ...clinic, pages });
  },
};

/** Issue 34's figures on a database of the clinic, each matching in turn. */
async function clinicFigures(serverUrl: string, log: (text: string) => void) {
  const url = await emptyDatabase(serverUrl);
  psql(url, [...SCHEMA, ...clinicSeed(LISTS), "ANALYZE"].join(";\n"));
  const app = scenarioApp(postgres(url));
  const lists = {} as Record<Matching, JoinedLists>;
  const over = {} as Record<Matching, Thresholds>;
  for (const matching of ["rows", "tables"] as const) {
    log(`postgres-rows: ${LISTS} watched joined lists, ${matching} matching`);
    lists[matching] = await joinedLists(app, matching, LISTS, LIST_WRITES[matching]);
    log(`postgres-rows: ${THRESHOLD_WATCHES} watched thresholds, ${matching} matching`);
    over[matching] = await overThresholds(
      app,
      matching,
      THRESHOLD_WATCHES,
      THRESHOLD_WRITES[matching],
    );
  }
  await app.close();
  return { lists, over };
}

/**
 * Issue 34's pages on a database of a ledger (amounts 1..20 x PAGES, indexed): `PAGES` watched
 * pages, page n the 10 smallest amounts from 10n on; each insert (then deleted, unmeasured) is
 * of an amount past every page's last row.
 */
async function ledgerPages(serverUrl: string, log: (text: string) => void) {
  const url = await emptyDatabase(serverUrl);
  psql(
    url,
    `CREATE TABLE ledger (id integer PRIMARY KEY, amount integer NOT NULL);
     CREATE INDEX ledger_by_amount ON ledger (amount);
     INSERT INTO ledger SELECT g, g FROM generate_series(1, ${PAGES * 20}) g;
     ANALYZE;`,
  );
  const app = ledgerApp(postgres(url));
  const pages = await pageFigures(app, PAGES, PAGE_WRITES, (matching) =>
    log(`postgres-rows: ${PAGES} watched pages, ${matching} matching`),
  );
  await app.close();
  return pages;
}

interface Clinic {
  lists: Record<Matching, JoinedLists>;
  over: Record<Matching, Thresholds>;
  pages: Record<Matching, Pages>;
}

function section(blocks: Record<Matching, WriteBlock>, { lists, over, pages }: Clinic): Section {
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
    ...clinicComparisons(lists, over),
    {
      label: `postgres re-runs per insert past every page, ${PAGES} watched pages, rows matching`,
      value: median(pages.rows.reruns),
      unit: "x",
      target: { op: "<=", value: 0 },
    },
    {
      label: `postgres re-runs per insert past every page, ${PAGES} watched pages, tables matching`,
      value: median(pages.tables.reruns),
      unit: "x",
    },
    {
      label: "postgres pages: insert → settled, tables / rows matching (median)",
      value: median(pages.tables.settledMs) / median(pages.rows.settledMs),
      unit: "x",
    },
  );
  for (const matching of ["rows", "tables"] as const)
    figures.push(
      figureOf(
        `${LISTS} joined lists, commit → notify, ${matching}`,
        "ms",
        lists[matching].commitToNotify,
      ),
      figureOf(
        `${THRESHOLD_WATCHES} thresholds, matching per write, ${matching}`,
        "ms",
        over[matching].matchMs,
      ),
      figureOf(`${PAGES} pages, insert → settled, ${matching}`, "ms", pages[matching].settledMs),
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
      `Joined lists and thresholds (issue 34), in this process, on a database of their own: ${LISTS} doctors with 4 appointments each, each with a patient of its own; \`schedule(doctor)\` reads \`appointments a JOIN patients p ON p.id = a.patient_id WHERE a.doctor_id = ?\`, watched for every doctor, and ${LIST_WRITES.rows} (rows) / ${LIST_WRITES.tables} (tables) renames of a patient one schedule lists. \`orders_over(n)\` reads \`orders WHERE total > ?\` for n = 100 ... ${THRESHOLD_WATCHES * 100}; ${THRESHOLD_WRITES.rows} / ${THRESHOLD_WRITES.tables} inserts of an order over 1% of them; matching time as on SQLite (a ReadIndex of every watch's reads, the insert's change looked up, median of 50). Today's row matching read \`patients\` and \`orders\` whole there, as table matching does.`,
      `Pages (issue 34), in this process, on a database of their own: a ledger of ${PAGES * 20} amounts (indexed); \`ledger_page(from)\` reads \`ledger WHERE amount >= ? ORDER BY amount LIMIT 10\`, watched for from = 10, 20 ... ${PAGES * 10}; each of ${PAGE_WRITES.rows} (rows) and ${PAGE_WRITES.tables} (tables) inserts is of an amount past every page's last row (then deleted, unmeasured): a page is read up to its last row's amount, where the filter alone (\`amount >= ?\`, before pages on PostgreSQL) matched every insert, as table matching does. Insert → settled: from the command's call to every re-run it caused done, the change feed's notification included.`,
      `Table matching gets ${WRITES.tables} writes (${WRITES.tables * PROCESSES} samples, so its p99 is close to its maximum): each costs up to ${PROCESSES * WATCHED} re-runs on the 2 shared cores; fewer are counted when the next write arrives while a child still re-runs (coalesced into one).`,
    ],
  };
}

/** Issue 34's rows, as on SQLite. */
function clinicComparisons(
  lists: Record<Matching, JoinedLists>,
  over: Record<Matching, Thresholds>,
): Comparison[] {
  const p99Of = (values: number[]) => percentile(values, 0.99);
  return [
    {
      label: `postgres re-runs per rename, ${LISTS} watched joined lists, rows matching`,
      value: median(lists.rows.reruns),
      unit: "x",
      target: { op: "<=", value: 2 },
    },
    {
      label: `postgres re-runs per rename, ${LISTS} watched joined lists, tables matching`,
      value: median(lists.tables.reruns),
      unit: "x",
    },
    {
      label: `postgres commit → notify p99, ${LISTS} joined lists, rows matching`,
      value: p99Of(lists.rows.commitToNotify),
      unit: "ms",
    },
    {
      label: `postgres commit → notify p99, ${LISTS} joined lists, tables matching`,
      value: p99Of(lists.tables.commitToNotify),
      unit: "ms",
    },
    {
      label: "postgres joined lists: commit → notify p99, tables / rows matching",
      value: p99Of(lists.tables.commitToNotify) / p99Of(lists.rows.commitToNotify),
      unit: "x",
    },
    {
      label: `postgres re-runs per insert over ${over.rows.matching} of ${THRESHOLD_WATCHES} thresholds, rows matching`,
      value: median(over.rows.reruns),
      unit: "x",
      target: { op: "<=", value: over.rows.matching + 1 },
    },
    {
      label: `postgres re-runs per insert over ${over.tables.matching} of ${THRESHOLD_WATCHES} thresholds, tables matching`,
      value: median(over.tables.reruns),
      unit: "x",
    },
    {
      label: `postgres matching time per write, ${THRESHOLD_WATCHES} thresholds, rows matching`,
      value: median(over.rows.matchMs),
      unit: "ms",
      target: { op: "<", value: 1 },
    },
    {
      label: `postgres matching time per write, ${THRESHOLD_WATCHES} thresholds, tables matching`,
      value: median(over.tables.matchMs),
      unit: "ms",
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(postgresRowsBench);
