/**
 * Issue 48: what PostgreSQL change capture costs writers, and what the `logical` mode gives
 * back. On a cluster of its own started with fsync and synchronous_commit on (by initdb and
 * pg_ctl here, `bench/lib/durableCluster.ts`: `scripts/postgres-cluster.sh` turns both off,
 * which takes the flush NOTIFY's lock waits on off the commit path), wal_level logical:
 * pgbench's single-row UPDATEs with no capture, with the `triggers` mode and one listening
 * process, and with the `logical` mode and a relaying process, in the same rounds; commit →
 * notification in another process for each mode; and the time a second process takes to
 * relay after the relaying one is SIGKILLed. The cluster is stopped and removed at the end.
 *
 *   npm run bench -- capture               # this row alone, printed, nothing written
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { installCapture } from "../packages/livecmd/runtime/db/postgres/changes/installChangeFeed.ts";
import { RELAY_RETRY_MS } from "../packages/livecmd/runtime/db/postgres/changes/logicalRelay.ts";
import { LIVECMD_SCHEMA } from "../packages/livecmd/runtime/db/postgres/livecmdSchema.ts";
import type { PgPool } from "../packages/livecmd/runtime/db/postgres/pgLibrary.ts";
import { captureChild, within, type Capture, type CaptureChild } from "./lib/captureChildren.ts";
import { startDurableCluster } from "./lib/durableCluster.ts";
import { wallClock } from "./lib/pgWatchers.ts";
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

const CAPTURES: readonly Capture[] = ["none", "triggers", "logical"];
const WRITERS = [1, 8] as const;
const ROUNDS = 3;
/** pgbench's `-T`: long enough for thousands of commits, short enough for 18 runs. */
const SECONDS = 3;
const ROWS = 10_000;
/** Timed writes per mode, one at a time, `PULSE_GAP_MS` apart once each is heard. */
const PULSES = 200;
const PULSE_GAP_MS = 10;
const KILLS = 4;
const execFileAsync = promisify(execFile);

/** One pgbench run: its rate, the commits it made (counted in the table) and what was heard of them. */
interface Run {
  perSecond: number;
  committed: number;
  heard: number;
  /** From pgbench's exit to the listener's last notification of its commits, ms. */
  lagMs: number;
  /** The listening (and relaying) child's CPU time over the wall time from pgbench's start to the last notification: cores it kept busy. */
  childCores: number;
}

type Runs = Record<Capture, Record<(typeof WRITERS)[number], Run[]>>;

export const captureBench: BenchModule = {
  async run(context) {
    const cluster = startDurableCluster();
    const scriptDir = mkdtempSync(path.join(tmpdir(), "livecmd-pgbench-"));
    const pool = new pg.Pool({ connectionString: cluster.url });
    const said: Logged[] = [];
    try {
      await seed(pool);
      const script = path.join(scriptDir, "update.sql");
      writeFileSync(
        script,
        `\\set id random(1, ${ROWS})\nUPDATE bench_rows SET n = n + 1 WHERE id = :id;\n`,
      );
      const bench: Bench = {
        url: cluster.url,
        pool,
        script,
        phase: "seed",
        hear(line) {
          said.push({ phase: bench.phase, line });
          context.log(`capture: a child logged: ${line}`);
        },
      };
      const runs = await measureCommits(bench, context.log);
      context.log("capture: the triggers mode's trigger ending in NOTIFY or in a change table");
      const sinks = await measureSinks(bench);
      const latencies = {} as Record<Exclude<Capture, "none">, number[]>;
      for (const capture of ["triggers", "logical"] as const) {
        context.log(`capture: commit → notification, ${capture}, ${PULSES} writes`);
        latencies[capture] = await measureLatency(bench, capture);
      }
      context.log(`capture: SIGKILL of the relay → first notification, ${KILLS} kills`);
      const takeovers = await measureTakeovers(bench);
      return section(runs, sinks, latencies, takeovers, said);
    } finally {
      await pool.end();
      rmSync(scriptDir, { recursive: true, force: true });
      cluster.stop();
    }
  },
};

/**
 * What every measurement shares: the database, a pool on it, pgbench's script, where children's
 * logs go, and the phase they are told of under.
 */
interface Bench {
  url: string;
  pool: pg.Pool;
  script: string;
  phase: string;
  hear: (line: string) => void;
}

/** A line a child logged, and the phase of the bench it came in. */
interface Logged {
  phase: string;
  line: string;
}

/** `bench_rows`, written by pgbench, and `bench_pulse`, written by the timed writes. */
async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(`
    CREATE TABLE bench_rows (id integer PRIMARY KEY, n integer NOT NULL, label text NOT NULL);
    INSERT INTO bench_rows SELECT g, 0, 'row ' || g FROM generate_series(1, ${ROWS}) g;
    CREATE TABLE bench_pulse (id integer PRIMARY KEY, n integer NOT NULL);
    INSERT INTO bench_pulse SELECT g, 0 FROM generate_series(1, 1000) g;`);
  await pool.query("VACUUM ANALYZE"); // in a statement of its own: not in a transaction
}

/**
 * Puts the database in `capture`: everything livecmd installed is removed first (its schema,
 * with the trigger functions and so the triggers, its publication, the full old rows, the slot),
 * so "none" is the database as it was before livecmd, then the mode is installed as livecmd
 * installs it.
 */
async function setCapture(pool: pg.Pool, capture: Capture): Promise<void> {
  await pool.query(`
    DROP SCHEMA IF EXISTS ${LIVECMD_SCHEMA} CASCADE;
    DROP PUBLICATION IF EXISTS livecmd;
    ALTER TABLE bench_rows REPLICA IDENTITY DEFAULT;
    ALTER TABLE bench_pulse REPLICA IDENTITY DEFAULT;`);
  await withoutSlots(pool);
  if (capture !== "none") await installCapture(pool as unknown as PgPool, capture);
}

/**
 * Drops every replication slot: a relay just stopped may still hold its slot for a moment,
 * and the next `logical` block must start from a slot of its own, not from WAL of the blocks
 * before it.
 */
async function withoutSlots(pool: pg.Pool): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const { rows } = await pool.query<{ slot_name: string; active: boolean }>(
      "SELECT slot_name, active FROM pg_replication_slots",
    );
    if (rows.length === 0) return;
    for (const slot of rows)
      if (!slot.active) await pool.query("SELECT pg_drop_replication_slot($1)", [slot.slot_name]);
    if (waited > 10_000) throw new Error("bench capture: a slot still active after 10 s");
    await sleep(50);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `ROUNDS` rounds of every capture in turn (the order turned by one a round, so that no mode is
 * always the first after the listener starts), each with pgbench of 1 then 8 writers.
 */
async function measureCommits(bench: Bench, log: (text: string) => void): Promise<Runs> {
  const runs = {} as Runs;
  for (const capture of CAPTURES) runs[capture] = { 1: [], 8: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (let k = 0; k < CAPTURES.length; k++) {
      const capture = CAPTURES[(round + k) % CAPTURES.length]!;
      bench.phase = `commits/s round ${round + 1} ${capture}`;
      log(
        `capture: round ${round + 1}/${ROUNDS}, ${capture}: pgbench with ${WRITERS.join(", then ")} writers, ${SECONDS} s each`,
      );
      const block = await commitBlock(bench, capture);
      for (const writers of WRITERS) runs[capture][writers].push(block[writers]);
    }
  return runs;
}

/**
 * What a writer's commit pays for each way of capture, nobody passing anything on: no capture;
 * the `triggers` mode's statement trigger, which NOTIFYs at commit; the same trigger writing a
 * row of a change table that one process would read and pass on (as SQLite's change log is
 * read) instead; and logical decoding as livecmd installs it, its slot read by PostgreSQL's own
 * `pg_recvlogical` into /dev/null (the least any logical consumer costs: the WAL sender's
 * decoding, with no relay behind it).
 */
type Sink = "none" | "notify" | "table" | "decoded";
const SINKS: readonly Sink[] = ["none", "notify", "table", "decoded"];
type SinkRuns = Record<Sink, Record<(typeof WRITERS)[number], number[]>>;

/** The trigger's NOTIFY, as livecmd installs it: swapped for an INSERT into the change table. */
const NOTIFY_CALL = "PERFORM pg_notify('livecmd_changes', payload);";

/** Puts the database in `sink`; resolves what ends it (the `decoded` sink's reader). */
async function setSink(bench: Bench, sink: Sink): Promise<() => Promise<void>> {
  const { pool } = bench;
  await setCapture(pool, sink === "none" ? "none" : sink === "decoded" ? "logical" : "triggers");
  if (sink === "decoded") return slotReader(bench);
  if (sink === "table") await writeChangeTable(pool);
  return async () => {};
}

async function writeChangeTable(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ definition: string }>(
    `SELECT pg_get_functiondef('${LIVECMD_SCHEMA}.notify_change()'::regprocedure) AS definition`,
  );
  const definition = rows[0]!.definition;
  if (!definition.includes(NOTIFY_CALL))
    throw new Error(`bench capture: the trigger function no longer says ${NOTIFY_CALL}`);
  await pool.query(
    `CREATE TABLE ${LIVECMD_SCHEMA}.bench_changes (id bigserial PRIMARY KEY, payload text NOT NULL);
     ${definition.replace(NOTIFY_CALL, `INSERT INTO ${LIVECMD_SCHEMA}.bench_changes (payload) VALUES (payload);`)}`,
  );
}

/** `pg_recvlogical` streaming livecmd's slot into /dev/null, once it streams; resolves its stop. */
async function slotReader({ url, pool }: Bench): Promise<() => Promise<void>> {
  const { rows } = await pool.query<{ slot: string }>(
    "SELECT slot_name AS slot FROM pg_replication_slots WHERE database = current_database()",
  );
  const reader = spawn("pg_recvlogical", [
    ...["-d", url, "--slot", rows[0]!.slot, "--start", "-f", "/dev/null"],
    ...["-o", "proto_version=1", "-o", "publication_names=livecmd", "-o", "messages=true"],
  ]);
  const ended = once(reader, "exit");
  for (let waited = 0; ; waited += 50) {
    const active = await pool.query("SELECT 1 FROM pg_replication_slots WHERE active");
    if (active.rowCount! > 0) break;
    if (waited > 10_000)
      throw new Error("bench capture: pg_recvlogical did not stream within 10 s");
    await sleep(50);
  }
  return async () => {
    reader.kill("SIGINT");
    await ended;
  };
}

/** `ROUNDS` rounds of each sink in turn (the order turned by one a round), 1 then 8 writers. */
async function measureSinks(bench: Bench): Promise<SinkRuns> {
  const runs = {} as SinkRuns;
  for (const sink of SINKS) runs[sink] = { 1: [], 8: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (let k = 0; k < SINKS.length; k++) {
      const sink = SINKS[(round + k) % SINKS.length]!;
      bench.phase = `sinks round ${round + 1} ${sink}`;
      const stop = await setSink(bench, sink);
      try {
        for (const writers of WRITERS) runs[sink][writers].push(await pgbench(bench, writers));
      } finally {
        await stop();
      }
    }
  return runs;
}

/** The database put in `capture`, its listening (and relaying) child started, pgbench run under it. */
async function commitBlock(
  bench: Bench,
  capture: Capture,
): Promise<Record<(typeof WRITERS)[number], Run>> {
  await setCapture(bench.pool, capture);
  const child = capture === "none" ? undefined : await captureChild(bench.url, capture, bench.hear);
  try {
    // A slot is made when the relay first streams: commits before it would never be heard.
    if (capture === "logical") await child!.relaying();
    const block = {} as Record<(typeof WRITERS)[number], Run>;
    for (const writers of WRITERS) block[writers] = await pgbenchRun(bench, writers, child);
    return block;
  } finally {
    await child?.stop();
  }
}

/** From pgbench's exit, how long the listener may take to hear all its commits before they count as missed. */
const CATCH_UP_MS = 20_000;

/**
 * pgbench with `writers` clients; its commits counted by what they added to `bench_rows.n`
 * (pgbench does not count those in flight when its time is up), and the notifications `child`
 * heard of them, waited for until it has heard them all or `CATCH_UP_MS` passed.
 */
async function pgbenchRun(bench: Bench, writers: number, child?: CaptureChild): Promise<Run> {
  const before = await committedSoFar(bench.pool);
  const heardBefore = (await child?.count()) ?? 0;
  const cpuBefore = (await child?.cpu()) ?? 0;
  const startedAt = performance.now();
  const perSecond = await pgbench(bench, writers);
  const endedAt = performance.now();
  const committed = (await committedSoFar(bench.pool)) - before;
  if (!child) return { perSecond, committed, heard: 0, lagMs: 0, childCores: 0 };
  for (;;) {
    const heard = (await child.count()) - heardBefore;
    const now = performance.now();
    const lagMs = now - endedAt;
    if (heard >= committed || lagMs > CATCH_UP_MS) {
      const childCores = ((await child.cpu()) - cpuBefore) / 1000 / (now - startedAt);
      return { perSecond, committed, heard, lagMs, childCores };
    }
    await sleep(20);
  }
}

async function committedSoFar(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>("SELECT sum(n) AS n FROM bench_rows");
  return Number(rows[0]!.n);
}

/** Commits per second of pgbench's run of the UPDATE script (prepared, `-T SECONDS`). */
async function pgbench({ url, script }: Bench, writers: number): Promise<number> {
  const { stdout } = await execFileAsync("pgbench", [
    ...["-n", "-M", "prepared", "-f", script, "-T", String(SECONDS)],
    ...["-c", String(writers), "-j", String(Math.min(writers, 2)), url],
  ]);
  const rate = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  if (!rate) throw new Error(`bench capture: pgbench gave no rate:\n${stdout}`);
  return Number(rate[1]);
}

/** Warm-up writes before the timed ones: the child's first notifications load its modules. */
const WARM_PULSES = 10;

/** `PULSES` single UPDATEs of `bench_pulse`, each timed from its commit to the child's hearing of it. */
async function measureLatency(bench: Bench, capture: Exclude<Capture, "none">): Promise<number[]> {
  bench.phase = `latency ${capture}`;
  await setCapture(bench.pool, capture);
  const child = await captureChild(bench.url, capture, bench.hear);
  try {
    if (capture === "logical") await child.relaying();
    const samples: number[] = [];
    for (let k = 0; k < WARM_PULSES + PULSES; k++) {
      const ms = await pulse(bench.pool, child, k + 1);
      if (k >= WARM_PULSES) samples.push(ms);
      await sleep(PULSE_GAP_MS);
    }
    return samples;
  } finally {
    await child.stop();
  }
}

/** Writes row `id` of `bench_pulse` (autocommit: committed when the call returns); ms until `child` hears it. */
async function pulse(pool: pg.Pool, child: CaptureChild, id: number): Promise<number> {
  const told = child.pulse(id);
  await pool.query("UPDATE bench_pulse SET n = n + 1 WHERE id = $1", [id]);
  const committedAt = wallClock();
  return (await within(told, `the notification of bench_pulse ${id}`)) - committedAt;
}

/**
 * Two processes in the `logical` mode, `KILLS` times: SIGKILL of the one relaying, a write right
 * after, timed from the kill to the survivor's hearing of it; a new standby started after each.
 */
async function measureTakeovers(bench: Bench): Promise<number[]> {
  bench.phase = "takeover";
  await setCapture(bench.pool, "logical");
  let relay = await captureChild(bench.url, "logical", bench.hear);
  let standby: CaptureChild | undefined;
  try {
    await relay.relaying();
    standby = await captureChild(bench.url, "logical", bench.hear);
    const samples: number[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      // The standby tries to relay every RELAY_RETRY_MS from its start: a pause of any length
      // within one period puts the kill anywhere in it, as a crash would fall.
      await sleep(Math.random() * RELAY_RETRY_MS);
      const id = 900 + kill;
      const told = standby.pulse(id);
      const killedAt = wallClock();
      const gone = relay.kill();
      await bench.pool.query("UPDATE bench_pulse SET n = n + 1 WHERE id = $1", [id]);
      samples.push((await within(told, `the survivor hears bench_pulse ${id}`)) - killedAt);
      await gone;
      relay = standby;
      standby = undefined; // the survivor relays now: a failed start must not stop it twice
      standby = await captureChild(bench.url, "logical", bench.hear);
    }
    return samples;
  } finally {
    await standby?.stop();
    await relay.stop();
  }
}

const NAMES: Record<Capture, string> = {
  none: "no capture",
  triggers: "`triggers` mode, 1 listener",
  logical: "`logical` mode, 1 relay",
};

const writersText = (writers: number) => `${writers} writer${writers === 1 ? "" : "s"}`;

/** Each capture's commits/s with `writers`, one sample a round, so ratios pair them round by round. */
function rateFigure(runs: Runs, capture: Capture, writers: (typeof WRITERS)[number]): Figure {
  const rates = runs[capture][writers].map((run) => run.perSecond);
  return figureOf(`${writersText(writers)}, ${NAMES[capture]}: commits/s`, "per s", rates, rates);
}

/** Against no capture, and whether the listener heard every commit, and how late. */
function commitComparisons(runs: Runs, figures: Figure[]): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const writers of WRITERS) {
    const none = rateFigure(runs, "none", writers);
    figures.push(none);
    for (const capture of ["triggers", "logical"] as const) {
      const measured = rateFigure(runs, capture, writers);
      figures.push(measured);
      const target = capture === "logical" && writers === 8 ? 0.85 : undefined;
      comparisons.push(
        ratio(
          `capture commits/s, ${writersText(writers)}: ${capture} / no capture`,
          measured,
          none,
          target === undefined ? undefined : { op: ">=", value: target },
        ),
        keptUp(runs[capture][writers], capture, writers),
        {
          label: `capture ${capture}, ${writersText(writers)}: pgbench's end → last commit heard, worst run`,
          value: Math.max(...runs[capture][writers].map((run) => run.lagMs)),
          unit: "ms",
        },
        {
          label: `capture ${capture}, ${writersText(writers)}: cores the listening${capture === "logical" ? " and relaying" : ""} child kept busy (median)`,
          value: median(runs[capture][writers].map((run) => run.childCores)),
          unit: "x",
        },
      );
    }
  }
  return comparisons;
}

/** Notifications heard over commits made, all rounds together: 1 when every commit was heard once. */
function keptUp(runs: Run[], capture: Capture, writers: number): Comparison {
  const heard = runs.reduce((sum, run) => sum + run.heard, 0);
  const committed = runs.reduce((sum, run) => sum + run.committed, 0);
  return {
    label: `capture ${capture}, ${writersText(writers)}: notifications heard / commits (${heard} / ${committed})`,
    value: heard / committed,
    unit: "x",
    target: { op: ">=", value: 1 },
  };
}

const SINK_NAMES: Record<Sink, string> = {
  none: "no capture",
  notify: "the `triggers` mode's trigger, NOTIFY (nobody listening)",
  table: "the same trigger into a change table (nobody reading)",
  decoded: "logical decoding read by pg_recvlogical (no relay)",
};

function sinkComparisons(runs: SinkRuns, figures: Figure[]): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const writers of WRITERS) {
    const [none, notify, table, decoded] = SINKS.map((sink) =>
      figureOf(
        `${writersText(writers)}, ${SINK_NAMES[sink]}: commits/s`,
        "per s",
        runs[sink][writers],
        runs[sink][writers],
      ),
    ) as [Figure, Figure, Figure, Figure];
    figures.push(none, notify, table, decoded);
    comparisons.push(
      ratio(`capture sink, ${writersText(writers)}: change table / NOTIFY`, table, notify),
      ratio(`capture sink, ${writersText(writers)}: NOTIFY / no capture`, notify, none),
      ratio(`capture sink, ${writersText(writers)}: change table / no capture`, table, none),
      ratio(
        `capture sink, ${writersText(writers)}: logical decoding read by pg_recvlogical / no capture`,
        decoded,
        none,
      ),
    );
  }
  return comparisons;
}

function latencyComparisons(latencies: Record<"triggers" | "logical", number[]>): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const capture of ["triggers", "logical"] as const)
    for (const [name, q] of [
      ["p50", 0.5],
      ["p99", 0.99],
    ] as const)
      comparisons.push({
        label: `capture ${capture}: commit → notification in another process, ${name}`,
        value: percentile(latencies[capture], q),
        unit: "ms",
      });
  return comparisons;
}

function section(
  runs: Runs,
  sinks: SinkRuns,
  latencies: Record<"triggers" | "logical", number[]>,
  takeovers: number[],
  said: Logged[],
): Section {
  const figures: Figure[] = [];
  const comparisons = [...commitComparisons(runs, figures), ...sinkComparisons(sinks, figures)];
  comparisons.push(...latencyComparisons(latencies), ...takeoverComparisons(takeovers), {
    label: "capture logical: relays stopped by an error, whole run",
    value: said.filter(({ line }) => RELAY_STOPPED.test(line)).length,
    unit: "x",
    target: { op: "<=", value: 0 },
  });
  for (const capture of ["triggers", "logical"] as const)
    figures.push(
      figureOf(`commit → notification, ${NAMES[capture]}, ms`, "ms", latencies[capture]),
    );
  figures.push(figureOf("SIGKILL of the relay → survivor hears a write, ms", "ms", takeovers));
  return {
    title: "PostgreSQL change capture: writers' commit rate, notification latency, relay takeover",
    method: METHOD,
    figures,
    comparisons,
    notes: notes(said),
  };
}

function takeoverComparisons(takeovers: number[]): Comparison[] {
  return [
    {
      label: "capture logical: SIGKILL of the relay → survivor hears the next write, median",
      value: median(takeovers),
      unit: "ms",
    },
    {
      label: "capture logical: SIGKILL of the relay → survivor hears the next write, max",
      value: Math.max(...takeovers),
      unit: "ms",
    },
  ];
}

const METHOD = [
  "A PostgreSQL 15 cluster of the bench's own (initdb and pg_ctl, unix socket), fsync, synchronous_commit and full_page_writes on, wal_level = logical; everything on the same 2 shared cores, on the machine's disk.",
  `Writers: Debian's pgbench (prepared, \`-T ${SECONDS}\`, \`-c\` 1 then 8, \`-j\` up to 2), each transaction one autocommit \`UPDATE bench_rows SET n = n + 1 WHERE id = random(1, ${ROWS})\`; commits counted by what they added to n.`,
  `${ROUNDS} rounds, each of every capture in turn (order turned each round): no capture (livecmd's schema, publication, slot and REPLICA IDENTITY FULL removed); the \`triggers\` mode installed by \`installCapture(pool, "triggers")\` and one child process listening through livecmd's \`ChangeListener\`; the \`logical\` mode installed by \`installCapture(pool, "logical")\` and one child running \`ChangeListener\` and \`LogicalRelay\` (as \`openPostgres.ts\` does), pgbench started once it relays. Ratios are the median of the per-round ratios.`,
  "Kept up: the child's count of notifications of bench_rows against the commits, polled every 20 ms from pgbench's exit until equal (or 20 s).",
  `Sinks: ${ROUNDS} more rounds of no capture, the \`triggers\` mode's statement trigger as installed (images built, then NOTIFY at commit), the same function with its NOTIFY replaced by an INSERT into a change table (\`bench_changes\`, a bigserial key and the payload), and the \`logical\` mode's install with its slot read by Debian's \`pg_recvlogical\` (pgoutput, into /dev/null), order turned each round, pgbench with 1 then 8 writers, nobody listening, reading or relaying: what each costs a writer, and the least any logical consumer costs on these cores.`,
  `Commit → notification: ${PULSES} single-row UPDATEs of another table from the bench process, one at a time ${PULSE_GAP_MS} ms apart, each timed on the wall clock from the UPDATE's return to the child's hearing of that row's image (after ${WARM_PULSES} unmeasured).`,
  `Takeover: two children in the logical mode; ${KILLS} times, after a random pause within the relay retry period (${RELAY_RETRY_MS} ms), SIGKILL of the one relaying and an UPDATE right after, timed from the kill to the survivor's hearing of it; a new standby started after each.`,
];

/** What `LogicalRelay` logs when its stream or passing on fails: it tries again after `RELAY_RETRY_MS`. */
const RELAY_STOPPED = /relaying PostgreSQL's changes stopped/;

function notes(said: Logged[]): string[] {
  const notes = [
    "The `logical` mode sets REPLICA IDENTITY FULL (every UPDATE logs its old row whole), which no capture does not: that WAL is part of what it costs.",
    "pgbench, PostgreSQL, the listening child and the bench share 2 cores with other work: read the rates as ratios within a round.",
    "Commit → notification is timed from the UPDATE's return in the writing process: a sample below 0 is a notification heard before the writer's process ran again (a NOTIFY is delivered as its transaction commits, before the writer is told). No ratio of the two modes is given: the `triggers` mode's median is close to 0.",
  ];
  const stops = said.filter(({ line }) => RELAY_STOPPED.test(line));
  if (stops.length > 0) {
    const phases = new Map<string, number>();
    for (const { phase } of stops) phases.set(phase, (phases.get(phase) ?? 0) + 1);
    notes.push(
      `A relay stopped on an error ${stops.length} times (${[...phases].map(([phase, n]) => `${phase}: ${n}`).join(", ")}); each time the relay lock is let go and a process streams the slot again from its last confirmed position after ${RELAY_RETRY_MS} ms.`,
    );
  }
  // The same complaint about different values is one: the values are in parentheses.
  const distinct = [...new Set(said.map(({ line }) => line.replace(/\(\d+\)/g, "(…)")))];
  if (distinct.length > 0)
    notes.push(`The children logged (${said.length} lines): ${distinct.slice(0, 5).join(" | ")}`);
  return notes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { createContext } = await import("./lib/context.ts");
  console.log(JSON.stringify(await captureBench.run(createContext()), null, 2));
}
