/**
 * Issue 49: the bus. Eight serving processes of the example app on one PostgreSQL cluster with
 * wal_level = logical (`scripts/postgres-cluster.sh`), each watching customers_show for 100
 * customers of its own, beside a relaying process and a bystander that watch nothing;
 * single-row UPDATEs of those customers from this process. In alternating
 * blocks the processes hear today's NOTIFY feed (the relay NOTIFYs every change, every process
 * LISTENs) or the bus (Debian's nats-server with JetStream, started here; each process
 * subscribes to its watches' subjects): how many processes each write reaches, commit →
 * notification at a steady rate, writes/s routed when writers go as fast as they commit, and
 * the CPU each part spends a write. Then memory per 100,000 watched keys in a process and in
 * nats-server, and a model for 100 processes from these costs (`lib/busModel.ts`). Everything
 * it starts is stopped, on failure too.
 *
 *   npm run bench -- bus               # this row alone, printed, nothing written
 */
import { pathToFileURL } from "node:url";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { busKeyHolder, type Memory } from "./lib/busKeyHolder.ts";
import { busModel, type BusCosts } from "./lib/busModel.ts";
import { busWatcher, type BusWatcher, type Heard } from "./lib/busWatchers.ts";
import { startLogicalCluster, type LogicalCluster } from "./lib/logicalCluster.ts";
import { startNatsBroker, type NatsBroker } from "./lib/natsBroker.ts";
import { processesCpuMs } from "./lib/processCpu.ts";
import {
  figureOf,
  median,
  percentile,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";
import {
  allNotified,
  notificationTimes,
  pacedWrites,
  RowWrites,
  saturatingWrites,
  type Write,
} from "./lib/timedWrites.ts";

/**
 * Serving processes, besides two that watch nothing: the relay's (so that its CPU is the
 * relay's) and a bystander's (so that its CPU is what hearing the changes costs).
 */
const PROCESSES = 8;
/** Where the two that watch nothing are among the processes; the serving ones come after. */
const RELAY = 0;
const BYSTANDER = 1;
/** customers_show URIs each serving process watches: process k watches customers (k−1)·100+1 … k·100. */
const WATCHED = 100;
/** Rounds of both modes, the order turned each round (an even number: each mode first as often). */
const ROUNDS = 4;
/** The steady rate: below what either mode routes here, so that its times are not queueing. */
const PACED_RATE = 400;
const PACED_SECONDS = 5;
/** Connections writing as fast as they commit, and for how long. */
const WRITERS = 8;
const SATURATED_SECONDS = 5;
/** From the last write's return, how long every write may take to be notified before it counts as missed. */
const CATCH_UP_MS = 20_000;
/** After the processes are ready, a pause (their start must not count), then an idle span measured. */
const SETTLE_MS = 1_000;
const IDLE_MS = 2_000;
/** The key holder's routes, taken in steps of this many. */
const KEYS_PER_STEP = 100_000;
const KEY_STEPS = 3;
/** Above every balance the example's seed gives: a notified balance names the write it reflects. */
const FIRST_SEQ = 10_000_000;
/** A stride prime to 800: consecutive writes go to rows (and processes) far apart, each row once in 800. */
const STRIDE = 337;
/** Issue 49's deployment, which the model sizes. */
const DEPLOYMENT = { processes: 100, watchedUris: 1_000_000, writesPerSecond: 10_000 };

type Mode = "notify" | "bus";
const MODE_NAMES: Record<Mode, string> = { notify: "today's NOTIFY feed", bus: "the bus" };

export const busBench: BenchModule = {
  async run(context) {
    const cluster = startLogicalCluster();
    let broker: NatsBroker | undefined;
    let traffic: Traffic | undefined;
    const pool = new pg.Pool({ connectionString: cluster.url, max: WRITERS });
    const said: string[] = [];
    try {
      broker = await startNatsBroker();
      traffic = await countTraffic(broker.url);
      const ids = Array.from(
        { length: PROCESSES * WATCHED },
        (_, k) => ((k * STRIDE) % (PROCESSES * WATCHED)) + 1,
      );
      const bench: Bench = {
        cluster,
        broker,
        traffic,
        pool,
        rows: new RowWrites(ids, FIRST_SEQ),
        said: (line) => {
          said.push(line);
          context.log(`bus: a process logged: ${line}`);
        },
      };
      const blocks: Block[] = [];
      for (let round = 0; round < ROUNDS; round++)
        for (const mode of round % 2 === 0
          ? (["notify", "bus"] as const)
          : (["bus", "notify"] as const)) {
          context.log(
            `bus: round ${round + 1}/${ROUNDS}, ${MODE_NAMES[mode]}: a relay, a bystander and ${PROCESSES} serving processes, ${PACED_RATE} writes/s for ${PACED_SECONDS} s, then ${WRITERS} writers for ${SATURATED_SECONDS} s`,
          );
          const block = await measureBlock(bench, mode);
          blocks.push(block);
          context.log(`bus: ${summary(block)}`);
        }
      context.log(`bus: ${KEY_STEPS} × ${KEYS_PER_STEP} key routes in one process`);
      const keys = await measureKeys(bench);
      return section(blocks, keys, said, broker.complaints());
    } finally {
      await traffic?.close();
      await pool.end();
      await broker?.stop();
      cluster.stop();
    }
  },
};

/** A block's figures in a line, as the run goes. */
function summary({ mode, paced, saturated }: Block): string {
  const p99 = (phase: Phase) => percentile(phase.samples, 0.99).toFixed(1);
  return `${MODE_NAMES[mode]}: ${reached(paced).toFixed(2)} processes a write; ${PACED_RATE} writes/s p99 ${p99(paced)} ms; ${WRITERS} writers ${Math.round(saturated.committedPerSecond)} commits/s, ${Math.round(saturated.routedPerSecond)} routed/s, p99 ${p99(saturated)} ms`;
}

/** What every measurement shares. */
interface Bench {
  cluster: LogicalCluster;
  broker: NatsBroker;
  traffic: Traffic;
  pool: pg.Pool;
  rows: RowWrites;
  said: (line: string) => void;
}

/**
 * The bench's own connection to the bus, counting what every listening process hears besides
 * the changes it watches: the relay's heartbeats and the `all` subject.
 */
interface Traffic {
  toEveryone(): number;
  close(): Promise<void>;
}

async function countTraffic(url: string): Promise<Traffic> {
  const nats = await connect({ servers: url, name: "bench bus" });
  let heard = 0;
  for (const subject of ["livecmd.*.beat", "livecmd.*.all"])
    nats.subscribe(subject, {
      callback: () => {
        heard += 1;
      },
    });
  await nats.flush();
  return { toEveryone: () => heard, close: () => nats.close() };
}

/** CPU time, µs, each part spent over `ms` of wall time. */
interface Usage {
  ms: number;
  /** By process: the relay's, the bystander's, then the serving ones'. */
  processes: number[];
  bench: number;
  broker: number;
  /** The whole cluster: postmaster and backends. */
  postgres: number;
  /** The WAL sender: the slot's logical decoding. */
  walsender: number;
  /** The backends of the processes' LISTEN connections (today's feed only). */
  listeners: number;
}

/** The backends of PostgreSQL whose CPU is told apart, found once the processes are ready. */
interface Backends {
  walsender: number[];
  listeners: number[];
}

async function backendsOf(pool: pg.Pool): Promise<Backends> {
  const { rows } = await pool.query<{ pid: number; listens: boolean; sends: boolean }>(
    `SELECT pid, query = 'LISTEN livecmd_changes' AS listens, backend_type = 'walsender' AS sends
       FROM pg_stat_activity`,
  );
  return {
    walsender: rows.filter(({ sends }) => sends).map(({ pid }) => pid),
    listeners: rows.filter(({ listens }) => listens).map(({ pid }) => pid),
  };
}

/** What the processes, the broker and PostgreSQL had done by a point in time. */
interface Snapshot {
  /** CPU so far, and `ms`: `performance.now()`. */
  usage: Usage;
  heard: Heard[];
  /** By process, the messages nats-server sent it (undefined: not on the bus). */
  out: (number | undefined)[];
  subscriptions: number[];
  brokerMessages: number;
  /** Messages JetStream holds: one a batch of the relay. */
  stored: number;
  toEveryone: number;
}

async function snapshot(
  bench: Bench,
  watchers: readonly BusWatcher[],
  backends: Backends,
): Promise<Snapshot> {
  const [processes, heard, connections, totals, stored] = await Promise.all([
    Promise.all(watchers.map((watcher) => watcher.cpu())),
    Promise.all(watchers.map((watcher) => watcher.heard())),
    bench.broker.connections(),
    bench.broker.totals(),
    bench.broker.stored(),
  ]);
  const of = (watcher: BusWatcher) =>
    connections.find(({ name }) => name === `livecmd ${watcher.pid}`);
  const { user, system } = process.cpuUsage();
  return {
    usage: {
      ms: performance.now(),
      processes,
      bench: user + system,
      broker: bench.broker.cpuMs() * 1000,
      postgres: bench.cluster.cpuMs() * 1000,
      walsender: processesCpuMs(backends.walsender) * 1000,
      listeners: processesCpuMs(backends.listeners) * 1000,
    },
    heard,
    out: watchers.map((watcher) => of(watcher)?.out_msgs),
    subscriptions: watchers.map((watcher) => of(watcher)?.subscriptions ?? 0),
    brokerMessages: totals.in_msgs + totals.out_msgs,
    stored,
    toEveryone: bench.traffic.toEveryone(),
  };
}

function usageBetween(before: Usage, after: Usage): Usage {
  return {
    ms: after.ms - before.ms,
    processes: after.processes.map((cpu, k) => cpu - before.processes[k]!),
    bench: after.bench - before.bench,
    broker: after.broker - before.broker,
    postgres: after.postgres - before.postgres,
    walsender: after.walsender - before.walsender,
    listeners: after.listeners - before.listeners,
  };
}

/** One phase of writes under one mode: what it measured. */
interface Phase {
  writes: number;
  /** Commits per second while the writers ran. */
  committedPerSecond: number;
  /** Writes over the time from the first write's start to the last write's notification, per second. */
  routedPerSecond: number;
  /** Commit → notification of each write notified, ms. */
  samples: number[];
  missed: number;
  /** Re-runs that threw. */
  failed: number;
  /** By process, changes to customers heard. */
  heard: number[];
  /** Changes to every table the processes heard (each re-runs every watch). */
  everyTable: number;
  /** By process: the messages nats-server sent it, less what every process hears. */
  delivered: number[];
  brokerMessages: number;
  /** The relay's batches: messages JetStream gained. */
  batches: number;
  usage: Usage;
}

/** One mode's processes, started for it: idle, then its two phases. */
interface Block {
  mode: Mode;
  idle: Usage;
  paced: Phase;
  saturated: Phase;
  /** By process, the subscriptions nats-server holds for it (0 on today's feed). */
  subscriptions: number[];
  /** The LISTEN connections found (one a process on today's feed). */
  listeners: number;
}

/**
 * The processes of `mode`: the relay's, watching nothing, started alone so that it takes the
 * slot, then the bystander and the serving ones once it streams; an idle span, a paced phase,
 * then a saturating one; all of them stopped at the end.
 */
async function measureBlock(bench: Bench, mode: Mode): Promise<Block> {
  await untilSlots(bench.pool, (active) => active === 0, "the last relay lets go of the slot");
  const bus = mode === "bus" ? bench.broker.url : undefined;
  const watching = (first: number, count: number) =>
    busWatcher(bench.cluster.url, bus, { first, count }, bench.said);
  const watchingNothing = () => watching(1, 0);
  const watchers: BusWatcher[] = [];
  try {
    watchers.push(await watchingNothing()); // RELAY
    await untilSlots(bench.pool, (active) => active > 0, "the first process relays");
    const others = await Promise.allSettled([
      watchingNothing(), // BYSTANDER
      ...Array.from({ length: PROCESSES }, (_, k) => watching(k * WATCHED + 1, WATCHED)),
    ]);
    for (const other of others) if (other.status === "fulfilled") watchers.push(other.value);
    const failed = others.find((other) => other.status === "rejected");
    if (failed) throw failed.reason;
    const backends = await backendsOf(bench.pool);
    await sleep(SETTLE_MS);
    const idleFrom = await snapshot(bench, watchers, backends);
    await sleep(IDLE_MS);
    const idle = usageBetween(idleFrom.usage, (await snapshot(bench, watchers, backends)).usage);
    const paced = await measurePhase(bench, watchers, backends, () =>
      pacedWrites(bench.pool, bench.rows, PACED_RATE, PACED_SECONDS),
    );
    const saturated = await measurePhase(bench, watchers, backends, () =>
      saturatingWrites(bench.pool, bench.rows, WRITERS, SATURATED_SECONDS),
    );
    const { subscriptions } = await snapshot(bench, watchers, backends);
    return { mode, idle, paced, saturated, subscriptions, listeners: backends.listeners.length };
  } finally {
    await Promise.allSettled(watchers.map((watcher) => watcher.stop()));
  }
}

/** The writes `write` makes, and what every part spent until each was notified (or `CATCH_UP_MS` passed). */
async function measurePhase(
  bench: Bench,
  watchers: readonly BusWatcher[],
  backends: Backends,
  write: () => Promise<Write[]>,
): Promise<Phase> {
  for (const watcher of watchers) {
    watcher.told.length = 0;
    watcher.failed.length = 0;
  }
  const before = await snapshot(bench, watchers, backends);
  const startedAt = performance.timeOrigin + performance.now();
  const writes = await write();
  const wroteFor = performance.timeOrigin + performance.now() - startedAt;
  const told = () => watchers.flatMap((watcher) => watcher.told);
  for (let waited = 0; !allNotified(writes, told()) && waited < CATCH_UP_MS; waited += 20)
    await sleep(20);
  const after = await snapshot(bench, watchers, backends);
  const { samples, missed, lastAt } = notificationTimes(writes, told());
  const toEveryone = after.toEveryone - before.toEveryone;
  return {
    writes: writes.length,
    committedPerSecond: (writes.length * 1000) / wroteFor,
    routedPerSecond: (writes.length * 1000) / (lastAt - startedAt),
    samples,
    missed,
    failed: sum(watchers.map((watcher) => watcher.failed.length)),
    heard: after.heard.map((heard, k) => heard.customers - before.heard[k]!.customers),
    everyTable: sum(after.heard.map((heard, k) => heard.everyTable - before.heard[k]!.everyTable)),
    delivered: after.out.map((out, k) =>
      out === undefined ? 0 : out - before.out[k]! - toEveryone,
    ),
    brokerMessages: after.brokerMessages - before.brokerMessages,
    batches: after.stored - before.stored,
    usage: usageBetween(before.usage, after.usage),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a relay may take to let go of the slot, or to stream it. */
const SLOT_WAIT_MS = 20_000;

/** Until the number of processes streaming a slot is `done`: the first process of a block must be the one to relay. */
async function untilSlots(
  pool: pg.Pool,
  done: (active: number) => boolean,
  what: string,
): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const { rows } = await pool.query<{ active: number }>(
      "SELECT count(*)::int AS active FROM pg_replication_slots WHERE active",
    );
    if (done(rows[0]!.active)) return;
    if (waited > SLOT_WAIT_MS) throw new Error(`bench bus: ${what} within ${SLOT_WAIT_MS} ms`);
    await sleep(50);
  }
}

/** What one process taking key routes through livecmd's bus listener cost, step by step. */
interface KeySteps {
  /** Per step of `KEYS_PER_STEP`: bytes added in the process (heap, RSS) and in nats-server. */
  heap: number[];
  rss: number[];
  broker: number[];
  /** Subscriptions nats-server gained a step: `KEYS_PER_STEP` when each key is one. */
  subscriptions: number[];
  /** Taking and flushing a step's routes, ms. */
  addMs: number[];
}

async function measureKeys({ cluster, broker }: Bench): Promise<KeySteps> {
  const holder = await busKeyHolder(cluster.url, broker.url);
  try {
    const steps: KeySteps = {
      heap: [],
      rss: [],
      broker: [],
      subscriptions: [],
      addMs: [],
    };
    let memory: Memory = await holder.memory();
    let totals = await broker.totals();
    for (let step = 0; step < KEY_STEPS; step++) {
      const startedAt = performance.now();
      await holder.add(KEYS_PER_STEP);
      steps.addMs.push(performance.now() - startedAt);
      const [nextMemory, nextTotals] = [await holder.memory(), await broker.totals()];
      steps.heap.push(nextMemory.heapUsed - memory.heapUsed);
      steps.rss.push(nextMemory.rss - memory.rss);
      steps.broker.push(nextTotals.mem - totals.mem);
      steps.subscriptions.push(nextTotals.subscriptions - totals.subscriptions);
      [memory, totals] = [nextMemory, nextTotals];
    }
    return steps;
  } finally {
    await holder.stop();
  }
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
/** The serving processes' values, not the relay's or the bystander's. */
const serving = (values: readonly number[]) => values.slice(BYSTANDER + 1);
const blocksOf = (blocks: readonly Block[], mode: Mode) =>
  blocks.filter((block) => block.mode === mode);
type PhaseName = "paced" | "saturated";

/** `measure` of each block of `mode`'s `phase`: one value a round. */
const perRound = (
  blocks: readonly Block[],
  mode: Mode,
  phase: PhaseName,
  measure: (phase: Phase, block: Block) => number,
) => blocksOf(blocks, mode).map((block) => measure(block[phase], block));

/** `phase`'s CPU of each part less what the part spent idle over as long, µs. */
function net(phase: Phase, { idle }: Block): Usage {
  const scale = phase.usage.ms / idle.ms;
  const less = (spent: number, idling: number) => spent - idling * scale;
  const { usage } = phase;
  return {
    ms: usage.ms,
    processes: usage.processes.map((cpu, k) => less(cpu, idle.processes[k]!)),
    bench: less(usage.bench, idle.bench),
    broker: less(usage.broker, idle.broker),
    postgres: less(usage.postgres, idle.postgres),
    walsender: less(usage.walsender, idle.walsender),
    listeners: less(usage.listeners, idle.listeners),
  };
}

/** Serving processes a write reached: the changes to customers they heard, over the writes. */
const reached = (phase: Phase) => sum(serving(phase.heard)) / phase.writes;

/** The relay's process's CPU a write, µs (it watches nothing; on today's feed it hears each change too). */
const relayCost = (phase: Phase, block: Block) =>
  net(phase, block).processes[RELAY]! / phase.writes;

/** The bystander's CPU a write, µs: what a process pays for the changes it hears and does not watch. */
const bystanderCost = (phase: Phase, block: Block) =>
  net(phase, block).processes[BYSTANDER]! / phase.writes;

/** A serving process's CPU a change it heard, µs (on the bus, each is one it watches). */
const watchedCost = (phase: Phase, block: Block) =>
  sum(serving(net(phase, block).processes)) / sum(serving(phase.heard));

/** A LISTEN backend's CPU a notification it delivers (one a write to each), µs. */
const listenerCost = (phase: Phase, block: Block) =>
  net(phase, block).listeners / (phase.writes * block.listeners);

/** nats-server's CPU a write, µs. */
const brokerCost = (phase: Phase, block: Block) => net(phase, block).broker / phase.writes;

/** nats-server's CPU a message it took in or sent out, µs. */
const brokerMessageCost = (phase: Phase, block: Block) =>
  net(phase, block).broker / phase.brokerMessages;

/** PostgreSQL's WAL sender's CPU a write, µs: the slot's logical decoding. */
const walsenderCost = (phase: Phase, block: Block) => net(phase, block).walsender / phase.writes;

/** The whole cluster's CPU a write, µs: the writes themselves, the re-runs' reads, decoding, NOTIFY. */
const postgresCost = (phase: Phase, block: Block) => net(phase, block).postgres / phase.writes;

/** Median of `slow` over `fast`, paired by round. */
function pairedRatio(slow: readonly number[], fast: readonly number[]): number {
  return median(slow.map((value, k) => value / fast[k]!));
}

function deliveryComparisons(blocks: readonly Block[]): Comparison[] {
  const today = perRound(blocks, "notify", "paced", reached);
  const bus = perRound(blocks, "bus", "paced", reached);
  const bystander = (mode: Mode) =>
    median(perRound(blocks, mode, "paced", (phase) => phase.heard[BYSTANDER]! / phase.writes));
  const messagesPerChange = perRound(
    blocks,
    "bus",
    "paced",
    (phase) => sum(serving(phase.delivered)) / sum(serving(phase.heard)),
  );
  return [
    {
      label: `bus, ${PROCESSES} serving processes: processes each write reached, ${MODE_NAMES.notify} (changes heard / writes)`,
      value: median(today),
      unit: "x",
      target: { op: ">=", value: PROCESSES },
    },
    {
      label: `bus, ${PROCESSES} serving processes: processes each write reached, ${MODE_NAMES.bus} (each row is watched by 1)`,
      value: median(bus),
      unit: "x",
      target: { op: "<=", value: 1 },
    },
    {
      label: `bus, ${PROCESSES} serving processes: processes each write reached, ${MODE_NAMES.notify} / ${MODE_NAMES.bus}`,
      value: pairedRatio(today, bus),
      unit: "x",
    },
    ...(["notify", "bus"] as const).map((mode) => ({
      label: `bus, ${MODE_NAMES[mode]}: changes a process that watches nothing heard a write`,
      value: bystander(mode),
      unit: "x" as const,
    })),
    {
      label: `bus, ${MODE_NAMES.bus}: messages nats-server sent the serving processes (/connz out_msgs less heartbeats) / changes they heard`,
      value: median(messagesPerChange),
      unit: "x",
    },
  ];
}

/** Per round, the p99 of `phase`'s commit → notification times. */
const p99s = (blocks: readonly Block[], mode: Mode, phase: PhaseName) =>
  perRound(blocks, mode, phase, ({ samples }) => percentile(samples, 0.99));

function latencyComparisons(blocks: readonly Block[], figures: Figure[]): Comparison[] {
  const comparisons: Comparison[] = [];
  const p99 = {} as Record<Mode, number[]>;
  const routed = {} as Record<Mode, number[]>;
  for (const mode of ["notify", "bus"] as const) {
    const name = MODE_NAMES[mode];
    const pooled = blocksOf(blocks, mode).flatMap(({ paced }) => paced.samples);
    p99[mode] = p99s(blocks, mode, "paced");
    routed[mode] = perRound(blocks, mode, "saturated", (phase) => phase.routedPerSecond);
    const committed = perRound(blocks, mode, "saturated", (phase) => phase.committedPerSecond);
    const saturatedP99 = p99s(blocks, mode, "saturated");
    figures.push(
      figureOf(`${PACED_RATE} writes/s, ${name}: commit → notification, ms`, "ms", pooled),
      figureOf(`${PACED_RATE} writes/s, ${name}: p99 of each round, ms`, "ms", p99[mode]),
      figureOf(`${WRITERS} writers, ${name}: commits/s`, "per s", committed),
      figureOf(`${WRITERS} writers, ${name}: writes/s routed`, "per s", routed[mode]),
      figureOf(`${WRITERS} writers, ${name}: p99 of each round, ms`, "ms", saturatedP99),
    );
    comparisons.push(
      {
        label: `bus, ${PROCESSES} serving processes, ${PACED_RATE} writes/s, ${name}: commit → notification p99 (median round)`,
        value: median(p99[mode]),
        unit: "ms",
      },
      {
        label: `bus, ${PROCESSES} serving processes, ${WRITERS} writers as fast as they commit, ${name}: writes/s routed (median round)`,
        value: median(routed[mode]),
        unit: "per s",
      },
      {
        label: `bus, ${PROCESSES} serving processes, ${WRITERS} writers, ${name}: commit → notification p99 (median round)`,
        value: median(saturatedP99),
        unit: "ms",
      },
    );
  }
  comparisons.push(
    {
      label: `bus, ${PACED_RATE} writes/s: commit → notification p99, ${MODE_NAMES.bus} / ${MODE_NAMES.notify}`,
      value: pairedRatio(p99.bus, p99.notify),
      unit: "x",
    },
    {
      label: `bus, ${WRITERS} writers: writes/s routed, ${MODE_NAMES.bus} / ${MODE_NAMES.notify}`,
      value: pairedRatio(routed.bus, routed.notify),
      unit: "x",
    },
  );
  return comparisons;
}

/** With writers as fast as they commit: the cores each part kept busy, median round. */
function saturatedCores(blocks: readonly Block[]): Comparison[] {
  const parts: [string, (usage: Usage) => number][] = [
    ["the relay's process", ({ processes }) => processes[RELAY]!],
    ["the bystander", ({ processes }) => processes[BYSTANDER]!],
    ["a serving process (median)", ({ processes }) => median(serving(processes))],
    ["nats-server", ({ broker }) => broker],
    ["PostgreSQL", ({ postgres }) => postgres],
    ["the writing bench", ({ bench }) => bench],
  ];
  return (["notify", "bus"] as const).flatMap((mode) =>
    parts.map(([part, spent]) => ({
      label: `bus, ${WRITERS} writers, ${MODE_NAMES[mode]}: cores ${part} kept busy`,
      value: median(
        perRound(blocks, mode, "saturated", ({ usage }) => spent(usage) / (usage.ms * 1000)),
      ),
      unit: "x" as const,
    })),
  );
}

/** Writes no notification reflected, re-runs that threw, changes to every table: none of them, whole run. */
function keptUpComparisons(blocks: readonly Block[]): Comparison[] {
  return (["notify", "bus"] as const).flatMap((mode) => {
    const phases = blocksOf(blocks, mode).flatMap(({ paced, saturated }) => [paced, saturated]);
    const total = (measure: (phase: Phase) => number) => sum(phases.map(measure));
    const none = (label: string, value: number): Comparison => ({
      label: `bus, ${MODE_NAMES[mode]}: ${label}, whole run`,
      value,
      unit: "x",
      target: { op: "<=", value: 0 },
    });
    return [
      none(
        `writes never notified (of ${total(({ writes }) => writes)})`,
        total((p) => p.missed),
      ),
      none(
        "re-runs that threw",
        total((p) => p.failed),
      ),
      none(
        "changes to every table heard (each re-runs every watch)",
        total((p) => p.everyTable),
      ),
    ];
  });
}

/** The model's inputs: medians over rounds. */
function costsOf(blocks: readonly Block[], keys: KeySteps): BusCosts {
  const onBus = (phase: PhaseName, measure: (phase: Phase, block: Block) => number) =>
    median(perRound(blocks, "bus", phase, measure));
  const both = (measure: (phase: Phase, block: Block) => number) => ({
    paced: onBus("paced", measure),
    saturated: onBus("saturated", measure),
  });
  const held = blocksOf(blocks, "bus").flatMap(({ subscriptions }) => serving(subscriptions));
  // The bystander watches nothing: what it holds, every process holds.
  const bystanders = blocksOf(blocks, "bus").map(({ subscriptions }) => subscriptions[BYSTANDER]!);
  return {
    pacedRate: PACED_RATE,
    reached: onBus("paced", reached),
    subjectsPerUri: (median(held) - median(bystanders)) / WATCHED,
    processBytesPerKey: median(keys.heap) / KEYS_PER_STEP,
    brokerBytesPerKey: median(keys.broker) / KEYS_PER_STEP,
    writesPerBatch: both((phase) => phase.writes / phase.batches),
    batchesPerSecond: onBus("paced", (phase) => phase.batches / (phase.usage.ms / 1000)),
    relay: both(relayCost),
    broker: both(brokerCost),
    walsender: both(walsenderCost),
    watched: onBus("paced", watchedCost),
    unwatched: {
      paced: median(perRound(blocks, "notify", "paced", bystanderCost)),
      saturated: median(perRound(blocks, "notify", "saturated", bystanderCost)),
    },
    listener: {
      paced: median(perRound(blocks, "notify", "paced", listenerCost)),
      saturated: median(perRound(blocks, "notify", "saturated", listenerCost)),
    },
  };
}

const PHASE_NAMES: Record<PhaseName, string> = {
  paced: `${PACED_RATE} writes/s`,
  saturated: `${WRITERS} writers`,
};

/** The CPU costs measured in the phases, each in the modes and phases it tells something in. */
const COSTS: [string, (phase: Phase, block: Block) => number, [Mode, PhaseName][]][] = [
  [
    "the relay's process's CPU a write",
    relayCost,
    [
      ["notify", "paced"],
      ["bus", "paced"],
      ["notify", "saturated"],
      ["bus", "saturated"],
    ],
  ],
  [
    "the bystander's CPU a write (it watches nothing)",
    bystanderCost,
    [
      ["notify", "paced"],
      ["bus", "paced"],
      ["notify", "saturated"],
    ],
  ],
  [
    "nats-server's CPU a write",
    brokerCost,
    [
      ["bus", "paced"],
      ["bus", "saturated"],
    ],
  ],
  [
    "nats-server's CPU a message in or out",
    brokerMessageCost,
    [
      ["bus", "paced"],
      ["bus", "saturated"],
    ],
  ],
  [
    "PostgreSQL's WAL sender's CPU a write",
    walsenderCost,
    [
      ["notify", "paced"],
      ["bus", "paced"],
      ["bus", "saturated"],
    ],
  ],
  [
    "PostgreSQL's CPU a write (postmaster and every backend)",
    postgresCost,
    [
      ["notify", "paced"],
      ["bus", "paced"],
    ],
  ],
  [
    "a LISTEN backend's CPU a notification",
    listenerCost,
    [
      ["notify", "paced"],
      ["notify", "saturated"],
    ],
  ],
];

function costComparisons(blocks: readonly Block[], costs: BusCosts): Comparison[] {
  const cpu = (label: string, value: number): Comparison => ({
    label: `bus cost: ${label}`,
    value,
    unit: "µs",
  });
  const paced = PHASE_NAMES.paced;
  return [
    ...COSTS.flatMap(([label, measure, where]) =>
      where.map(([mode, phase]) =>
        cpu(
          `${label}, ${PHASE_NAMES[phase]}, ${MODE_NAMES[mode]}`,
          median(perRound(blocks, mode, phase, measure)),
        ),
      ),
    ),
    cpu(
      `a serving process's CPU a change it watches (heard, re-run, notified), ${paced}, ${MODE_NAMES.bus}`,
      costs.watched,
    ),
    ...(["paced", "saturated"] as const).flatMap((phase) => [
      {
        label: `bus: writes a batch of the relay (one JetStream message), ${PHASE_NAMES[phase]}`,
        value: costs.writesPerBatch[phase],
        unit: "x" as const,
      },
      {
        label: `bus: messages in and out of nats-server a write, ${PHASE_NAMES[phase]}`,
        value: median(perRound(blocks, "bus", phase, (p) => p.brokerMessages / p.writes)),
        unit: "x" as const,
      },
    ]),
  ];
}

const MIB = 2 ** 20;

function keyComparisons(keys: KeySteps, figures: Figure[]): Comparison[] {
  const per = KEYS_PER_STEP.toLocaleString("en-US");
  const mib = (bytes: readonly number[]) => bytes.map((value) => value / MIB);
  figures.push(
    figureOf(`a process: heap per ${per} watched keys, MiB`, "MiB", mib(keys.heap)),
    figureOf(`a process: RSS per ${per} watched keys, MiB`, "MiB", mib(keys.rss)),
    figureOf(`nats-server: memory per ${per} watched keys, MiB`, "MiB", mib(keys.broker)),
    figureOf(`a process: ${per} routes taken and flushed, ms`, "ms", keys.addMs),
  );
  return [
    {
      label: `bus memory: a process's heap per ${per} watched keys`,
      value: median(keys.heap) / MIB,
      unit: "MiB",
    },
    {
      label: `bus memory: nats-server's memory per ${per} watched keys`,
      value: median(keys.broker) / MIB,
      unit: "MiB",
    },
    {
      label: "bus memory: subscriptions nats-server gained a key",
      value: median(keys.subscriptions) / KEYS_PER_STEP,
      unit: "x",
    },
  ];
}

const METHOD = [
  "A PostgreSQL cluster of the bench's own (`scripts/postgres-cluster.sh start DIR logical`: wal_level = logical, fsync off, synchronous_commit on), Debian's nats-server 2.9.10 with JetStream (file store) and its monitoring port, the example app's schema and seed (2,000 customers); everything on the same 2 shared cores.",
  `Ten processes, each \`bench/peers/busWatcher.ts\` (the example app and its \`LiveRegistry\`, as a serve process holds its clients' subscriptions): the relay's, started alone so that it takes the slot, and a bystander, both watching nothing (their CPU is the relay's, and what hearing changes costs a process); then ${PROCESSES} serving processes, serving process k watching customers_show for customers (k−1)·${WATCHED}+1 … k·${WATCHED}: every written row is watched by exactly one process.`,
  `${ROUNDS} rounds, each of both modes in turn (order turned each round), the processes started afresh for each: ${MODE_NAMES.notify} (the \`logical\` mode's relay NOTIFYs every change on \`livecmd_changes\`, every process LISTENs) and ${MODE_NAMES.bus} (\`LIVECMD_BUS\`: the relay keeps each batch in JetStream and publishes each change on its subjects; each process subscribes to its watches' subjects).`,
  `Writes: \`UPDATE customers SET balance = <a number no write set before> WHERE id = …\` in autocommit from this process, the rows in a stride-${STRIDE} order over the ${PROCESSES * WATCHED} watched (each row once every ${PROCESSES * WATCHED} writes). Paced: ${PACED_RATE} writes/s for ${PACED_SECONDS} s, each started on schedule (open loop). Saturating: ${WRITERS} connections writing one after another for ${SATURATED_SECONDS} s.`,
  "A notification is the registry telling its subscriber that a watched result changed (`Subscriber.notify`, where a serve process sends `notifications/resources/updated`); commit → notification is from the UPDATE's return in this process to the first notification whose re-run read that write's balance (or a later one's), wall clock across processes. Writes/s routed: the writes over the time from the first write's start to the last write's notification.",
  "Processes a write reached: the changes to customers each serving process's database told it of (`onChange`), summed over the serving processes, over the writes; on the bus cross-checked with nats-server's /connz out_msgs to each, less the heartbeats and `all` messages every process hears (counted by a subscription of the bench's own).",
  `CPU: each process's own \`process.cpuUsage()\`, nats-server's and PostgreSQL's (postmaster and its backends; the WAL sender's and the LISTEN connections' backends apart) from /proc, over each phase from just before its first write to its last notification, less what each spent in a ${IDLE_MS / 1000} s idle span before the phases (scaled to the phase's length). A serving process's cost of a change it watches: the serving processes' CPU over the changes they heard, on the bus (where each is watched).`,
  `Memory: one process (\`bench/peers/busKeyHolder.ts\`, --expose-gc) on the bus through livecmd's \`BusListener\`, taking ${KEY_STEPS} steps of ${KEYS_PER_STEP.toLocaleString("en-US")} customers.id values (one subject each) and flushing; its heap used and RSS after two full collections, and nats-server's /varz mem, before and after each step.`,
];

function section(
  blocks: readonly Block[],
  keys: KeySteps,
  said: readonly string[],
  complaints: readonly string[],
): Section {
  const figures: Figure[] = [];
  const costs = costsOf(blocks, keys);
  const comparisons = [
    ...deliveryComparisons(blocks),
    ...latencyComparisons(blocks, figures),
    ...saturatedCores(blocks),
    ...keyComparisons(keys, figures),
    ...costComparisons(blocks, costs),
    ...keptUpComparisons(blocks),
  ];
  return {
    title: "The bus: each change reaches only the processes that watch its rows",
    method: METHOD,
    figures,
    comparisons,
    notes: [...busModel(costs, DEPLOYMENT), ...notes(said, complaints)],
  };
}

function notes(said: readonly string[], complaints: readonly string[]): string[] {
  const notes = [
    "With the bus the relay still passes each batch on by NOTIFY too (`WalPassOn` notifies, then publishes), with no process listening: the bus's relay and PostgreSQL figures include that NOTIFY.",
    "The processes, the relay, PostgreSQL, nats-server and the writing bench share 2 cores: the costs are what each part spent here, and the writes/s routed what the whole machine did; read the model's limits as where one part's thread or core runs out, not as this machine's capacity.",
    "A serving process's cost of a watched change includes its re-run of customers_show (three statements). On today's feed the relay's process hears every change too, and its CPU includes that.",
  ];
  // The same complaint about different values is one: the values are in parentheses.
  const distinct = [...new Set(said.map((line) => line.replace(/\(\d+\)/g, "(…)")))];
  if (distinct.length > 0)
    notes.push(`The processes logged (${said.length} lines): ${distinct.slice(0, 5).join(" | ")}`);
  if (complaints.length > 0)
    notes.push(
      `nats-server warned (${complaints.length} lines): ${[...new Set(complaints)].slice(0, 3).join(" | ")}`,
    );
  return notes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { createContext } = await import("./lib/context.ts");
  console.log(JSON.stringify(await busBench.run(createContext()), null, 2));
}
