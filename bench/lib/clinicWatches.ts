import type { App } from "../../packages/livecmd/runtime/index.ts";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import { ReadIndex } from "../../packages/livecmd/runtime/live/readIndex.ts";
import { ReadSet, type Matching } from "../../packages/livecmd/runtime/live/readSet.ts";

/**
 * Issue 34's figures, the same on SQLite (bench/rows.bench.ts) and PostgreSQL
 * (bench/postgresRows.bench.ts), over the clinic of test/helpers/liveScenarios.ts: doctors'
 * schedules joined to their patients, and "orders over N".
 */

export interface JoinedLists {
  /** Re-runs per rename. */
  reruns: number[];
  /** From the write's change event to the notify call of the list that shows the patient. */
  commitToNotify: number[];
}

/** Watches `lists` schedules through one registry and times `writes` renames of a patient one schedule lists. */
export async function joinedLists(
  app: App,
  matching: Matching,
  lists: number,
  writes: number,
): Promise<JoinedLists> {
  const live = new LiveRegistry(app, { matching, onError: () => {} });
  let committedAt = 0;
  const commitToNotify: number[] = [];
  const stamp = engineOf(app).onChange(() => (committedAt ||= performance.now()));
  const notify = () => commitToNotify.push(performance.now() - committedAt);
  for (let doctor = 1; doctor <= lists; doctor += 1)
    await live.add("schedule", [doctor], { uri: `clinic://schedule/${doctor}`, notify });
  const reruns: number[] = [];
  for (let k = 0; k < writes; k += 1) {
    const patient = ((k * 7919) % (lists * 4)) + 1;
    const before = live.stats().reruns;
    committedAt = 0;
    await app.db.run("UPDATE patients SET name = ? WHERE id = ?", `${matching} ${k}`, patient);
    await app.db.caughtUp();
    await live.settled();
    reruns.push(live.stats().reruns - before);
  }
  if (commitToNotify.length !== writes)
    throw new Error(`joined lists: ${commitToNotify.length} notifications for ${writes} renames`);
  stamp();
  live.close();
  return { reruns, commitToNotify };
}

export interface Thresholds {
  /** Re-runs per insert of an order over 1% of the thresholds. */
  reruns: number[];
  /** How many thresholds each insert's total is over. */
  matching: number;
  /** Time to find the groups a change concerns in a read index of every watch, per insert (ms). */
  matchMs: number[];
}

/** The thresholds watched: 100, 200 ... so that a total just over `watches` is over 1% of them. */
export function thresholds(watches: number): number[] {
  return Array.from({ length: watches }, (_, i) => (i + 1) * 100);
}

/**
 * Watches "orders over N" for `watches` values of N and inserts `writes` orders, each over 1%
 * of them: the re-runs each causes, and, apart, the time the matching alone takes: every
 * watch's reads put in a `ReadIndex` as the registry does, and each insert's change looked up
 * in it (the median of 50 lookups).
 */
export async function overThresholds(
  app: App,
  matching: Matching,
  watches: number,
  writes: number,
): Promise<Thresholds> {
  const watched = thresholds(watches);
  const total = watched[Math.floor(watches / 100) - 1]! + 50;
  const live = new LiveRegistry(app, { matching, onError: () => {} });
  for (const n of watched)
    await live.add("ordersOver", [n], { uri: `clinic://orders_over/${n}`, notify: () => {} });
  const index = await readIndexOf(app, matching, watched);
  const reruns: number[] = [];
  const matchMs: number[] = [];
  for (let k = 0; k < writes; k += 1) {
    const changes: TableChange[] = [];
    const stop = engineOf(app).onChange((each) => changes.push(...each));
    const before = live.stats().reruns;
    await app.db.run("INSERT INTO orders VALUES (?, ?)", 1000 + k, total);
    await app.db.caughtUp();
    await live.settled();
    reruns.push(live.stats().reruns - before);
    stop();
    matchMs.push(timeOf(() => index.collect(changes[0]!, new Set())));
    await app.db.run("DELETE FROM orders WHERE id = ?", 1000 + k);
    await app.db.caughtUp();
    await live.settled();
  }
  live.close();
  return { reruns, matching: watched.filter((n) => n < total).length, matchMs };
}

/** A read index of one group per watched N, as the registry builds it. */
async function readIndexOf(app: App, matching: Matching, watched: readonly number[]) {
  const index = new ReadIndex<number>();
  for (const n of watched) {
    const reads = new ReadSet(matching);
    await engineOf(app).run("ordersOver", [n], {
      origin: Origin.Agent,
      observer: {
        read: (each) => reads.add(each),
        sawPrincipal: () => {},
        tablesOnly: matching === "tables",
      },
    });
    index.add(n, reads);
  }
  return index;
}

/** The median time of 50 calls of `work`, in ms. */
function timeOf(work: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < 50; i += 1) {
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[25]!;
}
