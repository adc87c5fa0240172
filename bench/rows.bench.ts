/**
 * Issue 19: a write costs what it touched, not what is watched. 100,000 watched tickets
 * (`tickets_show/{id}`, a ticket and its labels), one `LiveRegistry` each for row-level matching
 * and for table-level matching (the behaviour before, and the oracle); 1,000 principals watching
 * one URI, with a command that never reads `ctx.auth` against one that does; and a second process
 * writing the SQLite file, against writes in the process itself. Issue 34: 10,000 watched
 * schedules joined to their patients, and 10,000 watched "orders over N" (bench/lib/clinicWatches.ts);
 * 10,000 watched pages (`ORDER BY ... LIMIT`) and inserts past every page's last row.
 *
 *   npx tsx bench/rows.bench.ts        # prints this row alone, writes nothing
 */
import { deepStrictEqual } from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import BetterSqlite3 from "better-sqlite3";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { command, defineApp, type App } from "../packages/livecmd/runtime/index.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import { OTHER_WRITERS_POLL_MS } from "../packages/livecmd/runtime/db/sqlite/sqliteDatabase.ts";
import { LiveRegistry } from "../packages/livecmd/runtime/live/liveRegistry.ts";
import type { Matching } from "../packages/livecmd/runtime/live/readSet.ts";
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
  type Target,
} from "./lib/section.ts";
import { engineOf } from "../packages/livecmd/runtime/model/attachedEngine.ts";
import { clinicSeed, scenarioApp, SCHEMA } from "../test/helpers/liveScenarios.ts";
import {
  joinedLists,
  overThresholds,
  type JoinedLists,
  type Thresholds,
} from "./lib/clinicWatches.ts";

const TICKETS = 100_000;
/** Writes timed per mode: table-level matching re-runs every watched ticket on each. */
const WRITES: Record<Matching, number> = { rows: 200, tables: 3 };
const PRINCIPALS = 1000;
const COHORT_WRITES = 20;
const PROCESS_WRITES = 100;
/** Issue 34: watched schedules (each joined to its 4 patients), and watched thresholds. */
const LISTS = 10_000;
const LIST_WRITES: Record<Matching, number> = { rows: 100, tables: 3 };
const THRESHOLD_WATCHES = 10_000;
const THRESHOLD_WRITES: Record<Matching, number> = { rows: 30, tables: 3 };
/** Issue 34's pages: watched "the 10 smallest amounts from N on", and inserts past every page. */
const PAGES = 10_000;
const PAGE_WRITES: Record<Matching, number> = { rows: 30, tables: 3 };

const ticketsShow = command({ live: true }, async (ctx, id: number) => ({
  ticket: await ctx.db.get("SELECT id, title, assignee FROM tickets WHERE id = ?", id),
  labels: await ctx.db.all(
    "SELECT label FROM ticket_labels WHERE ticket_id = ? ORDER BY label",
    id,
  ),
}));
const ticketsAssign = command({}, async (ctx, id: number, assignee: string) =>
  ctx.db.run("UPDATE tickets SET assignee = ? WHERE id = ?", assignee, id),
);
/** The same read, telling each principal whether the ticket is theirs: one result per principal. */
const ticketsMine = command({ live: true }, async (ctx, id: number) => {
  const ticket = await ctx.db.get<{ assignee: string }>(
    "SELECT assignee FROM tickets WHERE id = ?",
    id,
  );
  return { mine: ticket?.assignee === ctx.auth?.clientId };
});

function ticketsApp(file: string): App {
  return defineApp({
    name: "tickets",
    commands: { ticketsShow, ticketsAssign, ticketsMine },
    agent: { grant: [ticketsShow, ticketsAssign, ticketsMine] },
    database: () => new BetterSqlite3(file),
  });
}

function seed(file: string): void {
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE tickets (id INTEGER PRIMARY KEY, title TEXT, assignee TEXT);
    CREATE TABLE ticket_labels (ticket_id INTEGER REFERENCES tickets(id), label TEXT);
    CREATE INDEX ticket_labels_by_ticket ON ticket_labels (ticket_id);`);
  db.transaction(() => {
    const ticket = db.prepare("INSERT INTO tickets VALUES (?, ?, 'nobody')");
    const label = db.prepare("INSERT INTO ticket_labels VALUES (?, ?)");
    for (let id = 1; id <= TICKETS; id++) {
      ticket.run(id, `Ticket ${id}`);
      label.run(id, id % 2 ? "bug" : "feature");
    }
  })();
  db.close();
}

const principal = (clientId: string): AuthInfo => ({ token: clientId, clientId, scopes: [] });

const gc = (() => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

interface Watched {
  reruns: number[];
  commitToNotify: number[];
  noKeyReruns: number;
  heapPerUri: number;
}

/** Watches every ticket through one registry and times `WRITES[matching]` assignments. */
async function watchEveryTicket(app: App, matching: Matching): Promise<Watched> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const live = new LiveRegistry(app, { matching, onError: () => {} });
  let committedAt = 0;
  const commitToNotify: number[] = [];
  const stamp = engineOf(app).onChange(() => (committedAt ||= performance.now()));
  const notify = () => commitToNotify.push(performance.now() - committedAt);
  for (let id = 1; id <= TICKETS; id++)
    await live.add("ticketsShow", [id], { uri: `app://tickets_show/${id}`, notify });
  gc();
  const heapPerUri = (process.memoryUsage().heapUsed - heapBefore) / TICKETS;
  const reruns: number[] = [];
  for (let k = 0; k < WRITES[matching]; k++) {
    const before = live.stats().reruns;
    committedAt = 0;
    await app.run("ticketsAssign", [((k * 7919) % TICKETS) + 1, `${matching} ${k}`], {
      origin: Origin.App,
    });
    await live.settled();
    reruns.push(live.stats().reruns - before);
  }
  deepStrictEqual(commitToNotify.length, WRITES[matching], "one notification per assignment");
  const before = live.stats().reruns;
  await app.db.run("INSERT INTO tickets (id, title) VALUES (?, 'unwatched')", TICKETS + 1);
  await live.settled();
  const noKeyReruns = live.stats().reruns - before;
  await app.db.run("DELETE FROM tickets WHERE id = ?", TICKETS + 1);
  await live.settled();
  stamp();
  live.close();
  return { reruns, commitToNotify, noKeyReruns, heapPerUri };
}

/** Re-runs per write when 1,000 principals watch one ticket through `name`. */
async function principalsWatching(
  app: App,
  name: "ticketsShow" | "ticketsMine",
): Promise<number[]> {
  const live = new LiveRegistry(app, { onError: () => {} });
  for (let p = 0; p < PRINCIPALS; p++)
    await live.add(name, [1], { uri: `app://${name}/1`, notify: () => {} }, principal(`p${p}`));
  const reruns: number[] = [];
  for (let k = 0; k < COHORT_WRITES; k++) {
    const before = live.stats().reruns;
    await app.run("ticketsAssign", [1, `p${k}`], { origin: Origin.App });
    await live.settled();
    reruns.push(live.stats().reruns - before);
  }
  live.close();
  return reruns;
}

/**
 * Commit -> notify for assignments made by `writer`: this process, or a plain better-sqlite3
 * script in a process of its own that stamps each commit on the shared clock.
 */
async function commitToNotify(app: App, file: string, writer: "this process" | "another process") {
  const live = new LiveRegistry(app, { onError: () => {} });
  let notified: (at: number) => void = () => {};
  await live.add("ticketsShow", [1], {
    uri: "app://tickets_show/1",
    notify: () => notified(performance.timeOrigin + performance.now()),
  });
  const child =
    writer === "another process"
      ? spawn(process.execPath, ["--eval", WRITER_SCRIPT, file], {
          stdio: ["pipe", "pipe", "inherit"],
        })
      : undefined;
  const lines = child && createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const latencies: number[] = [];
  for (let k = 0; k < PROCESS_WRITES; k++) {
    // Writes at every phase of the poll, as writes come: not in step with the notification before.
    await new Promise((resolve) => setTimeout(resolve, (k * 7) % OTHER_WRITERS_POLL_MS));
    const told = new Promise<number>((resolve) => (notified = resolve));
    let committed: number;
    if (child) {
      child.stdin!.write(`${writer} ${k}\n`);
      committed = Number((await lines!.next()).value);
    } else {
      await app.run("ticketsAssign", [1, `${writer} ${k}`], { origin: Origin.App });
      committed = performance.timeOrigin + performance.now();
    }
    latencies.push(Math.max(0, (await told) - committed));
    await live.settled();
  }
  child?.stdin!.end();
  live.close();
  return latencies;
}

/** Assigns ticket 1 once per line of stdin, printing each commit's time on the clock both processes share. */
const WRITER_SCRIPT = `
const db = new (require("better-sqlite3"))(process.argv[1]);
const assign = db.prepare("UPDATE tickets SET assignee = ? WHERE id = 1");
require("node:readline").createInterface({ input: process.stdin }).on("line", (who) => {
  assign.run(who);
  process.stdout.write(performance.timeOrigin + performance.now() + "\\n");
});`;

export const rowsBench: BenchModule = {
  async run(context) {
    const folder = mkdtempSync(path.join(tmpdir(), "livecmd-rows-bench-"));
    const file = path.join(folder, "tickets.sqlite");
    try {
      seed(file);
      const app = ticketsApp(file);
      context.log(`rows: ${TICKETS} watched tickets, row-level then table-level matching`);
      const rows = await watchEveryTicket(app, "rows");
      const tables = await watchEveryTicket(app, "tables");
      context.log(`rows: ${PRINCIPALS} principals watching one ticket`);
      const shared = await principalsWatching(app, "ticketsShow");
      const perPrincipal = await principalsWatching(app, "ticketsMine");
      context.log(`rows: ${PROCESS_WRITES} writes from this process and from another`);
      const here = await commitToNotify(app, file, "this process");
      const elsewhere = await commitToNotify(app, file, "another process");
      await app.close();
      const clinic = await clinicFigures(folder, context.log);
      const pages = await ledgerPages(folder, context.log);
      return section({ rows, tables, shared, perPrincipal, here, elsewhere, ...clinic, pages });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

/** Issue 34's figures on a SQLite file of the clinic, each matching in turn. */
async function clinicFigures(folder: string, log: (text: string) => void) {
  const file = path.join(folder, "clinic.sqlite");
  const seeding = new BetterSqlite3(file);
  seeding.pragma("journal_mode = WAL");
  for (const sql of [...SCHEMA, ...clinicSeed(LISTS)]) seeding.exec(sql);
  seeding.close();
  const app = scenarioApp(() => new BetterSqlite3(file));
  const lists = {} as Record<Matching, JoinedLists>;
  const over = {} as Record<Matching, Thresholds>;
  for (const matching of ["rows", "tables"] as const) {
    log(`rows: ${LISTS} watched joined lists, ${matching} matching`);
    lists[matching] = await joinedLists(app, matching, LISTS, LIST_WRITES[matching]);
    log(`rows: ${THRESHOLD_WATCHES} watched thresholds, ${matching} matching`);
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
 * Issue 34's pages on a SQLite file of a ledger (amounts 1..20 x PAGES, indexed): `PAGES`
 * watched pages, page n the 10 smallest amounts from 10n on; each insert (then deleted,
 * unmeasured) is of an amount past every page's last row.
 */
async function ledgerPages(folder: string, log: (text: string) => void) {
  const file = path.join(folder, "ledger.sqlite");
  const seeding = new BetterSqlite3(file);
  seeding.pragma("journal_mode = WAL");
  seeding.exec(`CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL);
    CREATE INDEX ledger_by_amount ON ledger (amount);
    WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${PAGES * 20})
    INSERT INTO ledger SELECT n, n FROM g;`);
  seeding.close();
  const app = ledgerApp(() => new BetterSqlite3(file));
  const pages = await pageFigures(app, PAGES, PAGE_WRITES, (matching) =>
    log(`rows: ${PAGES} watched pages, ${matching} matching`),
  );
  await app.close();
  return pages;
}

interface Measured {
  rows: Watched;
  tables: Watched;
  shared: number[];
  perPrincipal: number[];
  here: number[];
  elsewhere: number[];
  lists: Record<Matching, JoinedLists>;
  over: Record<Matching, Thresholds>;
  pages: Record<Matching, Pages>;
}

function section(measured: Measured): Section {
  const { rows, tables, shared, perPrincipal, here, elsewhere, lists, over, pages } = measured;
  const latency = (label: string, values: number[]): Figure => figureOf(label, "ms", values);
  const rowLatency = latency(`${TICKETS} watched, commit → notify, rows`, rows.commitToNotify);
  const tableLatency = latency(
    `${TICKETS} watched, commit → notify, tables`,
    tables.commitToNotify,
  );
  const hereLatency = latency("commit → notify, a write in this process", here);
  const elsewhereLatency = latency("commit → notify, a write from another process", elsewhere);
  const count = (label: string, value: number, target?: Target): Comparison => ({
    label,
    value,
    unit: "x",
    ...(target && { target }),
  });
  const p99 = (label: string, values: number[], target?: Target): Comparison => ({
    label,
    value: percentile(values, 0.99),
    unit: "ms",
    ...(target && { target }),
  });
  const comparisons: Comparison[] = [
    count(`rows: re-runs per write, ${TICKETS} watched`, median(rows.reruns), {
      op: "<=",
      value: 2,
    }),
    count(`tables: re-runs per write, ${TICKETS} watched`, median(tables.reruns)),
    count("re-runs per write, tables / rows", median(tables.reruns) / median(rows.reruns)),
    p99(`rows: commit → notify p99, ${TICKETS} watched`, rows.commitToNotify, {
      op: "<=",
      value: 5,
    }),
    p99(`tables: commit → notify p99, ${TICKETS} watched`, tables.commitToNotify),
    count(
      "commit → notify p99, tables / rows",
      percentile(tables.commitToNotify, 0.99) / percentile(rows.commitToNotify, 0.99),
    ),
    count("rows: re-runs after a write to no watched row", rows.noKeyReruns, {
      op: "<=",
      value: 0,
    }),
    count("tables: re-runs after a write to no watched row", tables.noKeyReruns),
    { label: "rows: heap per watched URI", value: rows.heapPerUri, unit: "bytes" },
    { label: "tables: heap per watched URI", value: tables.heapPerUri, unit: "bytes" },
    count(`rows: re-runs per write, ${PRINCIPALS} principals on one URI`, median(shared), {
      op: "<=",
      value: 1,
    }),
    count(
      `rows: re-runs per write, ${PRINCIPALS} principals, a read of ctx.auth`,
      median(perPrincipal),
    ),
    p99("rows: commit → notify p99, a write from another process", elsewhere),
    ratio("commit → notify p50, another process / this process", elsewhereLatency, hereLatency),
    ...clinicComparisons(lists, over, count, p99),
    count(
      `rows: re-runs per insert past every page, ${PAGES} watched pages`,
      median(pages.rows.reruns),
      {
        op: "<=",
        value: 0,
      },
    ),
    count(
      `tables: re-runs per insert past every page, ${PAGES} watched pages`,
      median(pages.tables.reruns),
    ),
    count(
      "pages: insert → settled, tables / rows (median)",
      median(pages.tables.settledMs) / median(pages.rows.settledMs),
    ),
  ];
  return {
    title: "Row-level live updates: a write costs what it touched",
    method: [
      `A SQLite file of ${TICKETS} tickets with a label each; \`tickets_show(id)\` reads a ticket by id and its labels by \`ticket_id\`. One \`LiveRegistry\` watches every ticket (in-process notify callbacks), first matching rows, then matching tables (the behaviour before #19, in the same run); each times ${WRITES.rows} and ${WRITES.tables} assignments of one ticket, awaited one by one, then inserts a ticket nobody watches.`,
      "Commit → notify: from the app's change event (the write reported, after its commit) to the notify call. Heap per watched URI: heap used after a forced GC, before and after adding the subscriptions, over their number.",
      `${PRINCIPALS} principals watch ticket 1 through \`tickets_show\` (which never reads \`ctx.auth\`: one cohort) and through \`tickets_mine\` (which does: one group each); ${COHORT_WRITES} assignments of ticket 1.`,
      `Another process: a plain better-sqlite3 script (no livecmd) assigns ticket 1 ${PROCESS_WRITES} times, one at a time after a pause of 0 to ${OTHER_WRITERS_POLL_MS - 1} ms (so at every phase of the poll), stamping each commit with performance.timeOrigin + now(); the watcher sees it through the change log, polled every ${OTHER_WRITERS_POLL_MS} ms. The peer: the same assignments made in the watcher's process.`,
      `Joined lists (issue 34): a SQLite file of ${LISTS} doctors with 4 appointments each, each with a patient of its own (${LISTS * 4} patients); \`schedule(doctor)\` reads \`appointments a JOIN patients p ON p.id = a.patient_id WHERE a.doctor_id = ?\`. One registry watches every schedule and times ${LIST_WRITES.rows} (rows) and ${LIST_WRITES.tables} (tables) renames of a patient one schedule lists, awaited one by one. Today's row matching read \`patients\` whole there, as table matching does.`,
      `Pages (issue 34): a SQLite file of a ledger of ${PAGES * 20} amounts (indexed); \`ledger_page(from)\` reads \`ledger WHERE amount >= ? ORDER BY amount LIMIT 10\`, watched for from = 10, 20 ... ${PAGES * 10}; each of ${PAGE_WRITES.rows} (rows) and ${PAGE_WRITES.tables} (tables) inserts is of an amount past every page's last row (then deleted, unmeasured): a page is read up to its last row's amount, where the filter alone (\`amount >= ?\`, before pages) matched every insert, as table matching does. Insert → settled: from the command's call to every re-run it caused done.`,
      `Thresholds (issue 34): \`orders_over(n)\` reads \`orders WHERE total > ?\`, watched for n = 100, 200 ... ${THRESHOLD_WATCHES * 100}; each of ${THRESHOLD_WRITES.rows} (rows) and ${THRESHOLD_WRITES.tables} (tables) inserts is of an order over 1% of them (then deleted, unmeasured). Matching time: every watch's reads put in a \`ReadIndex\` as the registry does, and the insert's change looked up in it, the median of 50 lookups per insert.`,
    ],
    figures: [
      rowLatency,
      tableLatency,
      hereLatency,
      elsewhereLatency,
      latency(`${LISTS} joined lists, commit → notify, rows`, lists.rows.commitToNotify),
      latency(`${LISTS} joined lists, commit → notify, tables`, lists.tables.commitToNotify),
      figureOf(
        `${THRESHOLD_WATCHES} thresholds, matching per write, rows`,
        "ms",
        over.rows.matchMs,
      ),
      figureOf(
        `${THRESHOLD_WATCHES} thresholds, matching per write, tables`,
        "ms",
        over.tables.matchMs,
      ),
      figureOf(`${PAGES} pages, insert → settled, rows`, "ms", pages.rows.settledMs),
      figureOf(`${PAGES} pages, insert → settled, tables`, "ms", pages.tables.settledMs),
    ],
    comparisons,
  };
}

/**
 * Issue 34's rows: a rename shown by one of 10,000 joined lists, an order over 1% of 10,000
 * thresholds. Today's row matching read the joined and the filtered tables whole, as table
 * matching does: the table rows are its figures too.
 */
function clinicComparisons(
  lists: Record<Matching, JoinedLists>,
  over: Record<Matching, Thresholds>,
  count: (label: string, value: number, target?: Target) => Comparison,
  p99: (label: string, values: number[], target?: Target) => Comparison,
): Comparison[] {
  const listReruns = (matching: Matching) => median(lists[matching].reruns);
  const overReruns = (matching: Matching) => median(over[matching].reruns);
  return [
    count(`rows: re-runs per rename, ${LISTS} watched joined lists`, listReruns("rows"), {
      op: "<=",
      value: 2,
    }),
    count(`tables: re-runs per rename, ${LISTS} watched joined lists`, listReruns("tables")),
    count(
      "joined lists: re-runs per rename, tables / rows",
      listReruns("tables") / listReruns("rows"),
    ),
    p99(`rows: commit → notify p99, ${LISTS} joined lists`, lists.rows.commitToNotify),
    p99(`tables: commit → notify p99, ${LISTS} joined lists`, lists.tables.commitToNotify),
    count(
      "joined lists: commit → notify p99, tables / rows",
      percentile(lists.tables.commitToNotify, 0.99) / percentile(lists.rows.commitToNotify, 0.99),
    ),
    count(
      `rows: re-runs per insert over ${over.rows.matching} of ${THRESHOLD_WATCHES} thresholds`,
      overReruns("rows"),
      { op: "<=", value: over.rows.matching + 1 },
    ),
    count(
      `tables: re-runs per insert over ${over.tables.matching} of ${THRESHOLD_WATCHES} thresholds`,
      overReruns("tables"),
    ),
    {
      label: `rows: matching time per write, ${THRESHOLD_WATCHES} thresholds`,
      value: median(over.rows.matchMs),
      unit: "ms",
      target: { op: "<", value: 1 },
    },
    {
      label: `tables: matching time per write, ${THRESHOLD_WATCHES} thresholds`,
      value: median(over.tables.matchMs),
      unit: "ms",
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await runAlone(rowsBench);
