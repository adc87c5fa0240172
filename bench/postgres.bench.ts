/**
 * Issue 12: PostgreSQL at scale. One database, the example app on it in this process and in 2
 * or 4 child processes (`bench/peers/pgWatcher.ts`, a serve process's live half), each
 * watching the same customers; writes made here. Commit → notify in one process and across
 * processes, re-runs per write by process count, and a read through livecmd against the same
 * statements on a plain `pg.Pool` (the floor).
 *
 *   npm run bench -- postgres            # this row alone, printed, nothing written
 *   npx tsx bench/postgres.bench.ts      # the same
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { createExampleApp } from "../example/app.ts";
import type { App } from "../packages/livecmd/runtime/model/app.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import type { Matching } from "../packages/livecmd/runtime/live/readSet.ts";
import { emptyDatabase, postgresServer } from "../test/helpers/postgres.ts";
import { wallClock, watchCustomers } from "./lib/pgWatchers.ts";
import { REPO_ROOT } from "./lib/processes.ts";
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
import { engineOf } from "../packages/livecmd/runtime/model/attachedEngine.ts";

/**
 * Subscriptions per process, customers_show/1..n, every one reading customers: one shows the
 * change feed's own latency; a hundred, what re-running them costs on top (each write re-runs
 * all of them in every process).
 */
const WATCH_COUNTS = [1, 100] as const;
/** Writes per configuration, one at a time: each waits until every process has told its subscriber. */
const WRITES = 200;
const PROCESS_COUNTS = [2, 4] as const;
const READ_ROUNDS = 5;
const READS_PER_ROUND = 2000;
/** Reads in flight at once, as several clients of one server would have. */
const READERS = 8;

/** customers_show's three statements, as the example command runs them. */
const SHOW_STATEMENTS = [
  `SELECT c.id, c.name, c.email, c.balance, c.created_at,
          COUNT(o.id) AS order_count, ROUND((COALESCE(SUM(o.total), 0)) * 100) / 100.0 AS order_total
     FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
    WHERE c.id = $1 GROUP BY c.id`,
  "SELECT tag FROM customer_tags WHERE customer_id = $1 ORDER BY tag",
  "SELECT key, value FROM customer_attributes WHERE customer_id = $1 ORDER BY key",
];

export interface Watcher {
  /** Resolves with the wall-clock time this watcher told the subscriber of `uri`, next time. */
  toldAbout(uri: string): Promise<number>;
  reruns(): Promise<number>;
  stop(): Promise<void>;
}

export const postgresBench: BenchModule = {
  async run(context) {
    const server = postgresServer();
    if (server.skip) throw new Error(`the postgres bench needs PostgreSQL: ${server.skip}`);
    process.env.DATABASE_URL = await emptyDatabase(server.url!);
    // The change feed's connection holds no process open by itself, and this one only waits on it.
    const alive = setInterval(() => {}, 60_000);
    const app = createExampleApp();
    await app.db.get("SELECT 1"); // creates and seeds the schema before anything is timed
    const figures: Figure[] = [];
    const latencies = new Map<string, number[]>();
    const reruns = new Map<string, number>();
    const record = async (name: string, watched: number, watchers: Watcher[]) => {
      const measured = await measureWrites(app, { watched, writes: WRITES, name }, watchers);
      latencies.set(name, measured.samples);
      reruns.set(name, measured.rerunsPerWrite);
    };

    for (const watched of WATCH_COUNTS) {
      context.log(`postgres: in one process, ${watched} subscriptions, ${WRITES} writes`);
      const local = await inProcessWatcher(app, watched);
      await record(`${subscriptionsLabel(watched)}, in one process`, watched, [local]);
      await local.stop();
      for (const count of PROCESS_COUNTS) {
        context.log(`postgres: ${count} processes x ${watched} subscriptions, ${WRITES} writes`);
        const children = await Promise.all(
          Array.from({ length: count }, () => childWatcher(process.env.DATABASE_URL!, watched)),
        );
        await record(`${subscriptionsLabel(watched)}, ${count} processes`, watched, children);
        await Promise.all(children.map((child) => child.stop()));
      }
    }
    context.log(`postgres: reads, ${READ_ROUNDS} rounds of ${READS_PER_ROUND}, ${READERS} at once`);
    const reads = await measureReads(app, process.env.DATABASE_URL);
    await app.close();
    clearInterval(alive);
    return section(figures, latencies, reruns, reads);
  },
};

/** What a block of writes measured: commit → notify per write per watcher, and re-runs per write summed over them. */
export interface WriteBlock {
  samples: number[];
  rerunsPerWrite: number;
}

/**
 * `writes` renames, one at a time, of customers 1..`watched` in turn, from this process; each
 * waits until every watcher has told the subscriber of the renamed URI.
 */
export async function measureWrites(
  app: App,
  { watched, writes, name }: { watched: number; writes: number; name: string },
  watchers: Watcher[],
): Promise<WriteBlock> {
  const before = await Promise.all(watchers.map((watcher) => watcher.reruns()));
  const samples: number[] = [];
  for (let k = 0; k < writes; k++) {
    const id = (k % watched) + 1;
    const uri = `app://customers_show/${id}`;
    const told = watchers.map((watcher) => watcher.toldAbout(uri));
    await app.run("customers_rename", [id, `Bench ${name} ${k}`], { origin: Origin.App });
    // The UPDATE ran in autocommit: when the call returns, it has committed.
    const committedAt = wallClock();
    for (const at of await Promise.all(told)) samples.push(at - committedAt);
  }
  const after = await Promise.all(watchers.map((watcher) => watcher.reruns()));
  const total = after.reduce((sum, value, index) => sum + value - before[index]!, 0);
  return { samples, rerunsPerWrite: total / writes };
}

function subscriptionsLabel(watched: number): string {
  return watched === 1 ? "1 subscription" : `${watched} subscriptions`;
}

/** The registry of the writing app itself: what a serve process sees of its own tools/call writes. */
async function inProcessWatcher(app: App, watched: number): Promise<Watcher> {
  const waiting = new Map<string, (at: number) => void>();
  const registry = await watchCustomers(app, watched, (uri, at) => {
    waiting.get(uri)?.(at);
    waiting.delete(uri);
  });
  return {
    toldAbout: (uri) => new Promise((resolve) => waiting.set(uri, resolve)),
    reruns: async () => registry.stats().reruns,
    stop: async () => registry.close(),
  };
}

/** A child process watching customers_show/1..`watched`, matching changes to its reads by `matching`. */
export async function childWatcher(
  databaseUrl: string,
  watched: number,
  matching: Matching = "rows",
): Promise<Watcher> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--conditions=livecmd-source", "--import", "tsx", "bench/peers/pgWatcher.ts"],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        WATCHED: String(watched),
        MATCHING: matching,
      },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const told = new Map<string, (at: number) => void>();
  const rerunAnswers: ((count: number) => void)[] = [];
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [kind, first, second] = line.split(" ");
    if (kind === "ready") ready();
    else if (kind === "reruns") rerunAnswers.shift()?.(Number(first));
    else if (kind === "told") {
      told.get(first!)?.(Number(second));
      told.delete(first!);
    }
  });
  await started;
  return {
    toldAbout: (uri) => new Promise((resolve) => told.set(uri, resolve)),
    reruns() {
      const answer = new Promise<number>((resolve) => rerunAnswers.push(resolve));
      child.stdin!.write("reruns\n");
      return answer;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin!.end();
      await exited;
    },
  };
}

interface Reads {
  livecmd: number[];
  floor: number[];
}

/** Microseconds per read, per round: livecmd's run of customers_show, then the same statements on a plain pool. */
async function measureReads(app: App, databaseUrl: string): Promise<Reads> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  const viaLivecmd = (id: number) =>
    engineOf(app).run("customers_show", [id], {
      origin: Origin.Agent,
      observer: { read: () => {}, sawPrincipal: () => {} },
    });
  const viaPool = async (id: number) => {
    // One after the other, as the command awaits them.
    const [customer, tags, attributes] = [
      await pool.query({ text: SHOW_STATEMENTS[0]!, values: [id] }),
      await pool.query({ text: SHOW_STATEMENTS[1]!, values: [id] }),
      await pool.query({ text: SHOW_STATEMENTS[2]!, values: [id] }),
    ];
    return { ...customer.rows[0], tags: tags.rows, attributes: attributes.rows };
  };
  const reads: Reads = { livecmd: [], floor: [] };
  await timeReads(viaLivecmd);
  await timeReads(viaPool); // warm both: statements explained, connections open
  for (let round = 0; round < READ_ROUNDS; round++) {
    const order: ["livecmd" | "floor", (id: number) => Promise<unknown>][] = [
      ["livecmd", viaLivecmd],
      ["floor", viaPool],
    ];
    if (round % 2 === 1) order.reverse();
    for (const [name, read] of order) reads[name].push(await timeReads(read));
  }
  await pool.end();
  return reads;
}

async function timeReads(read: (id: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      while (next < READS_PER_ROUND) await read((next++ % 2000) + 1);
    }),
  );
  return ((performance.now() - started) * 1000) / READS_PER_ROUND;
}

function section(
  figures: Figure[],
  latencies: Map<string, number[]>,
  reruns: Map<string, number>,
  reads: Reads,
): Section {
  const comparisons: Comparison[] = [];
  const byName = new Map<string, { p50: Figure; p99: Figure }>();
  for (const [name, samples] of latencies) {
    const all = figureOf(`commit → notify, ${name}`, "ms", samples);
    const p99 = {
      ...all,
      label: `p99 commit → notify, ${name}`,
      median: percentile(samples, 0.99),
    };
    figures.push(all);
    byName.set(name, { p50: all, p99 });
    comparisons.push(
      { label: `postgres commit → notify p50, ${name}`, value: all.median, unit: "ms" },
      { label: `postgres commit → notify p99, ${name}`, value: p99.median, unit: "ms" },
    );
  }
  for (const watched of WATCH_COUNTS) {
    const subscriptions = subscriptionsLabel(watched);
    const local = byName.get(`${subscriptions}, in one process`)!;
    for (const count of PROCESS_COUNTS) {
      const across = byName.get(`${subscriptions}, ${count} processes`)!;
      for (const [q, slow, fast] of [
        ["p50", across.p50, local.p50],
        ["p99", across.p99, local.p99],
      ] as const)
        comparisons.push(
          ratio(
            `postgres commit → notify ${q}, ${subscriptions}: ${count} processes / one process`,
            slow,
            fast,
          ),
        );
    }
  }
  for (const [name, value] of reruns)
    comparisons.push({
      label: `postgres re-runs per write, all processes, ${name}`,
      value,
      unit: "x",
    });
  const hundred = `${WATCH_COUNTS[1]} subscriptions`;
  comparisons.push({
    label: `postgres re-runs per write, ${hundred}: 4 processes / 2 processes`,
    value: reruns.get(`${hundred}, 4 processes`)! / reruns.get(`${hundred}, 2 processes`)!,
    unit: "x",
  });
  const livecmd = figureOf(
    "customers_show through livecmd, µs per read",
    "µs",
    reads.livecmd,
    reads.livecmd,
  );
  const floor = figureOf(
    "the same three statements on a plain pg.Pool, µs per read",
    "µs",
    reads.floor,
    reads.floor,
  );
  figures.push(livecmd, floor);
  comparisons.push(ratio("postgres read: livecmd / plain pg (floor)", livecmd, floor));
  return {
    title: "PostgreSQL: live updates across processes, and reads",
    method: [
      `One database on a local PostgreSQL (unix socket), the example app's schema and seed; ${WATCH_COUNTS.join(" or ")} subscriptions per process, \`customers_show/1..n\` on the process's own \`LiveRegistry\` (what \`livecmd serve\` holds for its clients), all reading customers, so every write re-runs all of them in every process.`,
      `${WRITES} writes per configuration, one at a time, \`app.run("customers_rename", [id, name])\` from this process on the watched ids in turn; each waits until every watching process has told the subscriber of the renamed URI. Commit → notify: from the write's return (its UPDATE ran in autocommit, so it has committed) to the notify call in the watching process, both on the wall clock (\`performance.timeOrigin + now()\`), one sample per write per process.`,
      "In one process: the writing app's own registry, its change feed round trip included (on PostgreSQL a process hears of its own writes through NOTIFY too). Across processes: 2 or 4 children (`bench/peers/pgWatcher.ts`), the writer watching nothing.",
      "Re-runs per write: the registries' `stats().reruns` over the block, summed over processes, / writes.",
      `Reads: ${READ_ROUNDS} rounds of ${READS_PER_ROUND} reads, ${READERS} in flight at once, alternating which goes first: \`engineOf(app).run("customers_show", [id])\` as the agent with read tracking on, against its three statements sent with \`pool.query\` on a plain \`pg.Pool\` (the same SQL with \`$1\` placeholders, awaited one after the other as the command does).`,
    ],
    figures,
    comparisons,
    notes: [
      "The machine's 2 cores are shared by PostgreSQL, the writer and every watching process: with 100 subscriptions, each write costs each process 100 re-runs (300 statements), so more processes means more work competing for the same cores, which is most of what the 100-subscription ratios show; the 1-subscription rows show the feed itself.",
      "A negative commit → notify means the watcher told its subscriber before the writer had heard of its own commit (the NOTIFY and the UPDATE's reply travel on different connections).",
      "Re-runs per write are a count, shown with `x` because every comparison carries a unit.",
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(postgresBench);
