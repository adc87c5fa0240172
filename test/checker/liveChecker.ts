import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/client";
import type { App } from "../../packages/livecmd/runtime/index.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/http/serveHttp.ts";
import { mulberry32 } from "../helpers/mulberry32.ts";
import {
  ANSWER_WITHIN_MS,
  connectClient,
  connectWatcher,
  readVersion,
  WATCHER_KINDS,
  type Watcher,
} from "./watchers.ts";

/**
 * A live-correctness checker in the spirit of Jepsen's: a seeded random workload of watchers
 * (2026-07-28 listens, 2025 subscriptions, the watch tool) on one HTTP endpoint, writers of every
 * kind the target has, storms and cancelled reads, all at once; then, at each quiescent point,
 * two properties over what every watcher was told:
 *
 * - **convergence**: the version of each watched URI's last result the watcher was told equals a
 *   fresh read's (a lost final change fails);
 * - **no silent change**: a URI watched through a whole round whose fresh result changed in it was
 *   told changed in it (a notification, or the watch tool's answer);
 * - and no run is said to have made no statement livecmd could see: every command of a target
 *   reads through the handle livecmd was given.
 *
 * Every failure names the seed, which replays the same schedule of watches and writes.
 */

/** The seeded choices of one run. */
export interface Pick {
  /** A whole number in [0, below). */
  int(below: number): number;
  /** Whether an event of probability `p` happens. */
  chance(p: number): boolean;
  item<T>(items: readonly T[]): T;
}

/** A way the target's data changes. */
export interface Write {
  /** Who writes, as a round's log names it: "the app's tool", "ctx.db", "Drizzle", "psql"... */
  readonly through: string;
  /** Whether it changes every watched result at once (a storm): picked less often. */
  readonly storm?: boolean;
  /**
   * Picks what it writes, at once (so that a seed replays the same schedule), and returns the
   * write; `tools` calls the app's tools as an agent would, over MCP.
   */
  prepare(pick: Pick): (tools: Tools) => Promise<unknown>;
}

export type Tools = (name: string, args: Record<string, unknown>) => Promise<unknown>;

/** An app under check: what may be watched in it and how it may be written. */
export interface Target {
  readonly name: string;
  readonly app: App;
  /** Every URI the watchers pick from. */
  readonly uris: readonly string[];
  readonly writes: readonly Write[];
}

export interface CheckOptions {
  seed: number;
  rounds: number;
  /** Watchers of each kind (default 1). */
  watchersPerKind?: number;
  /** URIs each watcher watches at most (default 24). */
  watchedEach?: number;
  /** Writes started together in a round, at most (default 6). */
  writesPerRound?: number;
  /** How long a watcher has to converge once the server settled (default 5 s). */
  convergeMs?: number;
  /**
   * Other processes serving the target's app on its database (on a bus): the watchers are spread
   * over them and this one, so that a change must reach another process to be told.
   */
  others?: readonly URL[];
}

type Counts = { writes: number; storms: number; refused: number };

/** What a run did and what it found. */
export interface CheckReport {
  readonly seed: number;
  readonly rounds: number;
  readonly writes: number;
  readonly storms: number;
  /** Writes the database refused (they changed nothing), named in their round's log. */
  readonly refused: number;
  /** Distinct URIs watched at some point, over all watchers. */
  readonly watched: number;
  /** Re-runs and notifications the server made. */
  readonly reruns: number;
  readonly notifications: number;
  readonly seconds: number;
  /** Each property that failed, with the seed, round, watcher and URI; empty when all held. */
  readonly failures: readonly string[];
}

export function seeded(seed: number): Pick {
  const next = mulberry32(seed);
  return {
    int: (below) => Math.floor(next() * below),
    chance: (p) => next() < p,
    item: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** Runs the workload on `target` for `options.rounds` rounds and checks every quiescent point. */
export async function checkLive(target: Target, options: CheckOptions): Promise<CheckReport> {
  const started = performance.now();
  const pick = seeded(options.seed);
  const serving = await serveHttp(target.app, { port: 0 });
  const tool = engineOf(target.app).watchTool!;
  const watchers: Watcher[] = [];
  const { client: agent } = await connectClient(serving.url, "2026-07-28");
  const tools: Tools = async (name, args) => {
    const result = await agent.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  };
  const counts: Counts = { writes: 0, storms: 0, refused: 0 };
  const everWatched = new Set<string>();
  const failures: string[] = [];
  try {
    const servers = [serving.url, ...(options.others ?? [])];
    for (const kind of WATCHER_KINDS)
      for (let n = 0; n < (options.watchersPerKind ?? 1); n++)
        watchers.push(await connectWatcher(servers[watchers.length % servers.length]!, kind, tool));
    let before = new Map<string, string>();
    for (let round = 1; round <= options.rounds && failures.length === 0; round++) {
      const throughout = watchers.map((watcher) => new Set(watcher.watching()));
      for (const watcher of watchers) watcher.heard.clear();
      const log = await playRound(target, watchers, agent, tools, pick, options, counts);
      for (const watcher of watchers) for (const uri of watcher.watching()) everWatched.add(uri);
      const where = `seed ${options.seed}, round ${round} (${log.join("; ")})`;
      failures.push(...(await settled(target.app, serving.live, where)));
      if (failures.length > 0) break;
      const fresh = await freshVersions(agent, watchers);
      failures.push(...(await converged(watchers, fresh, options.convergeMs ?? 5_000, where)));
      failures.push(...silentChanges(watchers, throughout, before, fresh, where));
      before = fresh;
    }
    // Every command of every target reads through the handle livecmd was given.
    for (const command of serving.live.unseen())
      failures.push(
        `livecmd said a run of ${command} made no statement it could see, though every run reads through the handle it was given (seed ${options.seed})`,
      );
  } finally {
    await Promise.all(watchers.map((watcher) => watcher.close()));
    await agent.close();
    // No drain: a cancelled 2025-era watch call's response stream stays open until it times out.
    await serving.close({ drainMs: 0 });
  }
  const { reruns, notifications } = serving.live.stats();
  return {
    seed: options.seed,
    rounds: options.rounds,
    ...counts,
    watched: everWatched.size,
    reruns,
    notifications,
    seconds: (performance.now() - started) / 1000,
    failures,
  };
}

/**
 * One round, everything in it at once: each watcher may watch more URIs or drop some, writes of
 * the target's kinds start a few milliseconds apart, and reads are made and some cancelled.
 * Returns what it did, for the failures' messages.
 */
async function playRound(
  target: Target,
  watchers: readonly Watcher[],
  agent: Client,
  tools: Tools,
  pick: Pick,
  options: CheckOptions,
  counts: Counts,
): Promise<string[]> {
  const log: string[] = [];
  const doing: Promise<unknown>[] = [];
  for (const watcher of watchers) {
    const watching = new Set(watcher.watching());
    if (watching.size > 0 && pick.chance(0.25)) {
      log.push(`${watcher.kind} drops some`);
      doing.push(watcher.unwatch((count) => pick.int(count)));
    } else if (watching.size < (options.watchedEach ?? 24)) {
      const unwatched = target.uris.filter((uri) => !watching.has(uri));
      const adding = [
        ...new Set(Array.from({ length: 1 + pick.int(8) }, () => pick.item(unwatched))),
      ];
      log.push(`${watcher.kind} watches ${adding.length} more`);
      doing.push(watcher.watch(adding));
    }
  }
  const writes = 1 + pick.int(options.writesPerRound ?? 6);
  for (let n = 0; n < writes; n++) {
    const write = pick.item(target.writes);
    if (write.storm && !pick.chance(0.3)) continue;
    counts.writes += 1;
    if (write.storm) counts.storms += 1;
    log.push(write.through);
    const [delay, writing] = [pick.int(15), write.prepare(pick)];
    // A write the database refuses (SQLite's "database is locked" under another process's write)
    // is one that did not happen: the properties are over what committed.
    doing.push(
      sleep(delay)
        .then(() => writing(tools))
        .catch((error: Error) => {
          counts.refused += 1;
          log.push(`${write.through} refused: ${error.message.split("\n")[0]}`);
        }),
    );
  }
  for (let n = pick.int(4); n > 0; n--)
    doing.push(cancelledRead(agent, pick.item(target.uris), pick.int(6)));
  const failed = (await Promise.allSettled(doing)).filter((each) => each.status === "rejected");
  if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
  return log;
}

/** A read that the client gives up on after `afterMs`, which may be before it reached the server. */
async function cancelledRead(client: Client, uri: string, afterMs: number): Promise<void> {
  const controller = new AbortController();
  setTimeout(() => controller.abort("the host moved on"), afterMs);
  await readVersion(client, uri, controller.signal).catch(() => {});
}

/**
 * Every write committed so far has been heard, re-run and notified: within `ANSWER_WITHIN_MS`,
 * else a failure, as a server that never settles would be to its clients.
 */
async function settled(
  app: App,
  live: { settled(): Promise<void> },
  where: string,
): Promise<string[]> {
  const late = sleep(ANSWER_WITHIN_MS, "late", { ref: false });
  const done = (async () => {
    await app.db.caughtUp();
    await live.settled();
  })();
  return (await Promise.race([done, late])) === "late"
    ? [`the server did not settle within ${ANSWER_WITHIN_MS} ms (${where})`]
    : [];
}

/** What each URI watched by anyone reads as now. */
async function freshVersions(
  agent: Client,
  watchers: readonly Watcher[],
): Promise<Map<string, string>> {
  const uris = new Set(watchers.flatMap((watcher) => watcher.watching()));
  const fresh = new Map<string, string>();
  for (const uri of uris) fresh.set(uri, await readVersion(agent, uri));
  return fresh;
}

/** Convergence: within `withinMs`, every watcher was told the fresh version of each URI it watches. */
async function converged(
  watchers: readonly Watcher[],
  fresh: ReadonlyMap<string, string>,
  withinMs: number,
  where: string,
): Promise<string[]> {
  const stale = () =>
    watchers.flatMap((watcher) =>
      watcher
        .watching()
        .filter((uri) => watcher.told.get(uri) !== fresh.get(uri))
        .map((uri) => ({ watcher, uri })),
    );
  const deadline = performance.now() + withinMs;
  while (stale().length > 0 && performance.now() < deadline) {
    await Promise.all(watchers.map((watcher) => watcher.idle()));
    await sleep(20);
  }
  return stale().map(
    ({ watcher, uri }) =>
      `a lost update: the ${watcher.kind} watcher of ${uri} was last told ${watcher.told.get(uri)}, but it reads ${fresh.get(uri)} (${where})`,
  );
}

/** No silent change: a URI watched through the round whose result changed was told so. */
function silentChanges(
  watchers: readonly Watcher[],
  throughout: readonly ReadonlySet<string>[],
  before: ReadonlyMap<string, string>,
  fresh: ReadonlyMap<string, string>,
  where: string,
): string[] {
  return watchers.flatMap((watcher, i) =>
    watcher
      .watching()
      .filter(
        (uri) =>
          throughout[i]!.has(uri) &&
          before.has(uri) &&
          before.get(uri) !== fresh.get(uri) &&
          !watcher.heard.has(uri),
      )
      .map(
        (uri) =>
          `a silent change: ${uri} went from ${before.get(uri)} to ${fresh.get(uri)}, and its ${watcher.kind} watcher was never told (${where})`,
      ),
  );
}

/** One line of a report, for the test's log and `npm run soak`. */
export function reportLine(target: Target, report: CheckReport): string {
  return `${target.name}: seed ${report.seed}, ${report.rounds} rounds, ${report.writes} writes (${report.storms} storms, ${report.refused} refused), ${report.watched} URIs watched, ${report.reruns} re-runs, ${report.notifications} notifications in ${report.seconds.toFixed(1)} s: ${report.failures.length === 0 ? "every property held" : `${report.failures.length} failures`}`;
}
