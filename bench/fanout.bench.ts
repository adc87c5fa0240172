/**
 * Issue 5, row 6: live fan-out. 10,000 subscriptions over 1,000 distinct URIs
 * (`app://customers_show/1..1000`, 10 subscribers each) held directly on a `LiveRegistry` of the
 * example app, with in-process notify callbacks; a burst of writes renames the same few
 * customers again and again; the registry with coalescing (the default) against the same
 * registry with coalescing off.
 *
 *   npx tsx bench/fanout.bench.ts        # prints this row alone, writes nothing
 */
import { deepStrictEqual } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { createExampleApp } from "../example/app.ts";
import type { App } from "../packages/livecmd/runtime/model/app.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import { LiveRegistry } from "../packages/livecmd/runtime/live/liveRegistry.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";
import { engineOf } from "../packages/livecmd/runtime/model/attachedEngine.ts";

const URIS = 1000;
const SUBSCRIBERS_PER_URI = 10;
/**
 * Writes per burst, awaited one after the other. One write alone is the row's title; the burst
 * is where coalescing can cut anything: since row-level matching a write re-runs only what read
 * its row, so the burst renames `BURST_ROWS` customers over and over, as a busy record is.
 */
const BURSTS = [1, 50] as const;
const BURST_ROWS = 5;
const ROUNDS = 5;

type Mode = "coalescing" | "coalescing off";
const MODES: readonly Mode[] = ["coalescing", "coalescing off"];

interface Burst {
  reruns: number;
  notifications: number;
  /** From just after each write returned to each notify call its change caused, ms. */
  fromReturn: number[];
  /** Notify calls that came before the write that caused them had returned (counted as 0 above). */
  beforeReturn: number;
  /** From the write's commit (the app's change event, fired when the statement has run) to each notify call, ms. */
  fromCommit: number[];
  /** How long each write call took, as the writer saw it, ms. */
  writeCalls: number[];
  /** From the first write's start to the last notification, ms. */
  total: number;
}

export const fanoutBench: BenchModule = {
  async run(context) {
    const app = createExampleApp(":memory:");
    void app.db; // open and seed the database before anything is timed
    context.log(
      `fanout: ${URIS * SUBSCRIBERS_PER_URI} subscriptions over ${URIS} URIs, ${ROUNDS} rounds x ${MODES.length} modes x bursts of ${BURSTS.join(", ")} writes`,
    );
    const bursts = new Map<string, Burst[]>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? MODES : [...MODES].reverse();
      for (const writes of BURSTS) {
        for (const mode of order) {
          const key = `${writes}|${mode}`;
          bursts.set(key, [...(bursts.get(key) ?? []), await burst(app, mode, round, writes)]);
        }
      }
    }
    return section(bursts);
  },
};

/** The rows a burst of `writes` renames: one for a single write, else `BURST_ROWS` in turn. */
function rowsOf(writes: number): number {
  return Math.min(writes, BURST_ROWS);
}

async function burst(app: App, mode: Mode, round: number, writes: number): Promise<Burst> {
  let writing: string | undefined;
  let stamped = false;
  // The latest commit and return of a write to each row: a notification is as stale as that.
  const committedAt = new Map<string, number>();
  // Listening before the registry does, so the commit is stamped before any re-run starts.
  const stopStamping = engineOf(app).onChange(() => {
    if (writing === undefined || stamped) return;
    stamped = true;
    committedAt.set(writing, performance.now());
  });
  const registry = new LiveRegistry(app, { coalesce: mode === "coalescing" });
  const returnedAt = new Map<string, number>();
  const fromReturn: number[] = [];
  const fromCommit: number[] = [];
  let beforeReturn = 0;
  let lastNotify = 0;
  const told = new Map<string, number>();
  const notify = (uri: string) => {
    const now = performance.now();
    told.set(uri, (told.get(uri) ?? 0) + 1);
    lastNotify = now;
    const returned = returnedAt.get(uri);
    if (returned === undefined) beforeReturn += 1;
    fromReturn.push(returned === undefined ? 0 : now - returned);
    fromCommit.push(now - committedAt.get(uri)!);
  };
  const removers: Promise<() => void>[] = [];
  for (let id = 1; id <= URIS; id++) {
    const uri = `app://customers_show/${id}`;
    for (let s = 0; s < SUBSCRIBERS_PER_URI; s++)
      removers.push(registry.add("customers_show", [id], { uri, notify }));
  }
  const remove = await Promise.all(removers);
  await registry.settled();
  const before = registry.stats();
  deepStrictEqual(before.subscriptions, URIS * SUBSCRIBERS_PER_URI);
  deepStrictEqual(before.groups, URIS);

  const writeCalls: number[] = [];
  const started = performance.now();
  for (let k = 0; k < writes; k++) {
    // The same few rows in turn, a different few each round.
    const id = (((k % rowsOf(writes)) * 19 + round * 7) % URIS) + 1;
    const uri = `app://customers_show/${id}`;
    writing = uri;
    stamped = false;
    const callStarted = performance.now();
    await app.run("customers_rename", [id, `Fanout ${mode} ${round} ${writes} ${k}`], {
      origin: Origin.App,
    });
    const now = performance.now();
    writeCalls.push(now - callStarted);
    returnedAt.set(uri, now);
  }
  writing = undefined;
  await registry.settled();
  const after = registry.stats();
  for (const end of remove) end();
  registry.close();
  stopStamping();
  const notifications = after.notifications - before.notifications;
  // Each subscriber of a renamed customer is told, at least once and at most once per write
  // to its row (a re-run that reads the name already told is silent).
  deepStrictEqual(
    told.size,
    rowsOf(writes),
    `${mode}: the subscribers of every renamed row are told`,
  );
  const writesPerRow = writes / rowsOf(writes);
  for (const [uri, times] of told) {
    const ok = times % SUBSCRIBERS_PER_URI === 0 && times <= writesPerRow * SUBSCRIBERS_PER_URI;
    deepStrictEqual(ok, true, `${mode}: ${uri} told ${times} times`);
  }
  return {
    reruns: after.reruns - before.reruns,
    notifications,
    fromReturn,
    beforeReturn,
    fromCommit,
    writeCalls,
    total: lastNotify - started,
  };
}

function section(bursts: Map<string, Burst[]>): Section {
  const figures: Figure[] = [];
  const comparisons: Comparison[] = [];
  const notes: string[] = [
    `Since row-level matching (#19) a write re-runs only the URI of its row, so a burst over as many rows as writes has nothing to coalesce; the burst here renames ${BURST_ROWS} rows ${BURSTS[1] / BURST_ROWS} times each, where coalescing folds the writes to a row into one re-run.`,
  ];
  for (const writes of BURSTS) {
    const name = writes === 1 ? "one write" : `${writes}-write burst over ${rowsOf(writes)} rows`;
    const perMode = new Map<Mode, { reruns: Figure; p99: Figure; p99Commit: Figure }>();
    for (const mode of MODES) {
      const runs = bursts.get(`${writes}|${mode}`)!;
      const label = (what: string) => `${name}, ${mode}: ${what}`;
      const reruns = figureOf(
        label("re-runs per write (one per burst)"),
        "re-runs",
        runs.map((b) => b.reruns / writes),
      );
      const latency = figureOf(
        label("write returned → notify, every notification"),
        "ms",
        runs.flatMap((b) => b.fromReturn),
      );
      const p99 = figureOf(
        label("p99 write returned → notify (one per burst)"),
        "ms",
        runs.map((b) => percentile(b.fromReturn, 0.99)),
      );
      const p99Commit = figureOf(
        label("p99 commit → notify (one per burst)"),
        "ms",
        runs.map((b) => percentile(b.fromCommit, 0.99)),
      );
      const writeCall = figureOf(
        label("one write call, as the writer sees it"),
        "ms",
        runs.flatMap((b) => b.writeCalls),
      );
      const total = figureOf(
        label("first write → last notification (one per burst)"),
        "ms",
        runs.map((b) => b.total),
      );
      figures.push(reruns, latency, p99, p99Commit, writeCall, total);
      perMode.set(mode, { reruns, p99, p99Commit });
      const early = runs.reduce((sum, b) => sum + b.beforeReturn, 0);
      if (early > 0)
        notes.push(
          `${name}, ${mode}: ${early} of ${runs.reduce((sum, b) => sum + b.notifications, 0)} notifications came before the write that caused them had returned (the re-runs run inside the write call); counted as 0 ms from the return.`,
        );
    }
    const on = perMode.get("coalescing")!;
    const off = perMode.get("coalescing off")!;
    comparisons.push(
      ratio(
        `fan-out ${name}: re-runs per write, coalescing off / coalescing`,
        off.reruns,
        on.reruns,
      ),
      {
        label: `fan-out ${name}: p99 write returned → notify, coalescing`,
        value: on.p99.median,
        unit: "ms",
      },
      {
        label: `fan-out ${name}: p99 write returned → notify, coalescing off`,
        value: off.p99.median,
        unit: "ms",
      },
      {
        label: `fan-out ${name}: p99 commit → notify, coalescing`,
        value: on.p99Commit.median,
        unit: "ms",
      },
      {
        label: `fan-out ${name}: p99 commit → notify, coalescing off`,
        value: off.p99Commit.median,
        unit: "ms",
      },
    );
  }
  return {
    title: "Live fan-out: one write, 10,000 subscriptions over 1,000 URIs",
    method: [
      `The example app on a fresh in-memory database; per burst a fresh \`LiveRegistry\` with ${URIS * SUBSCRIBERS_PER_URI} subscriptions: \`add("customers_show", [id], { uri, notify })\` ${SUBSCRIBERS_PER_URI} times for each id 1..${URIS}, notify an in-process callback; then \`settled()\`. Every subscriber of a URI shares its (command, arguments) group, so one write re-runs at most ${URIS} commands, not ${URIS * SUBSCRIBERS_PER_URI}, with or without coalescing.`,
      `A burst is ${BURSTS.join(" or ")} writes awaited one after the other, \`app.run("customers_rename", [id, name])\`, the ${BURSTS[1]} over ${BURST_ROWS} subscribed ids in turn; each customers_show subscription reads its customer by key, so a write re-runs only the URI whose row it changed. Checked after \`settled()\`: the ${SUBSCRIBERS_PER_URI} subscribers of every renamed row are told, at least once and at most once per write to it.`,
      `${ROUNDS} rounds; in each, for each burst size, a burst with coalescing (the default) and one with \`coalesce: false\`, alternating which goes first. Re-runs per write: the registry's \`stats().reruns\` over the burst / its writes.`,
      "Latency: from just after the latest write call to the row returned to each notify call. Commit → notify is from the latest such write's change event (a listener registered before the registry's), fired as soon as the UPDATE has run, before the write call returns.",
    ],
    figures,
    comparisons,
    notes,
  };
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(fanoutBench);
