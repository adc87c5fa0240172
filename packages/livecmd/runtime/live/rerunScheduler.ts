import { ANY_TABLE } from "../db/anyTable.ts";
import type { KeyValue, TableChange } from "../db/keyedAccess.ts";
import { FairRerunQueue } from "./fairRerunQueue.ts";
import { failureLog, keepServing } from "../problems/keepServing.ts";
import { debugLive, logCauses } from "./rerunDebug.ts";
import type { BurstFailures } from "./rerunFailures.ts";
import { holdersOf, type WatchGroup, type WatchGroups } from "./watchGroups.ts";

/**
 * Re-runs after a write go through a queue drained in slices: at most this many runs in flight
 * (an async driver's pool is not flooded) and at most this long started per event-loop turn,
 * so that a write re-running 65,536 subscriptions never holds up a read for more than a slice.
 * The queue takes holders in turn (`FairRerunQueue`), so that neither do they hold up another
 * holder's re-runs.
 */
const RERUN_CONCURRENCY = 32;
const RERUN_SLICE_MS = 4;

export interface RerunSchedulerOptions {
  readonly groups: WatchGroups;
  /** Re-run each affected group once per burst of writes rather than once per write. */
  readonly coalesce: boolean;
  /** One run of a group: what it reads, returns and tells its subscribers. */
  readonly execute: (group: WatchGroup) => Promise<void>;
  /** The re-runs that threw, told when the queue drains. */
  readonly failures: BurstFailures;
  /** A key value as `LIVECMD_DEBUG=live` prints it. */
  readonly valueText: () => (value: KeyValue) => string;
}

/**
 * When groups run: the writes of a burst matched to the groups that read what they changed
 * (including a run in progress, by what it read so far), each queued once, and the queue started
 * in slices a few runs at a time.
 */
export class RerunScheduler {
  readonly #options: RerunSchedulerOptions;
  readonly #groups: WatchGroups;
  /** Groups with a run in progress: a change meanwhile is matched against what it read so far. */
  readonly #running = new Set<WatchGroup>();
  #pendingChanges: TableChange[] = [];
  #flushScheduled = false;
  /** Groups owed a re-run, by holder in the order the writes reached them. */
  readonly #queued = new FairRerunQueue<WatchGroup>();
  #pumpScheduled = false;
  #inFlight = 0;

  constructor(options: RerunSchedulerOptions) {
    this.#options = options;
    this.#groups = options.groups;
  }

  /** Whether a re-run is owed to `group` and not yet started (queued, or its burst unmatched). */
  owes(group: WatchGroup): boolean {
    return this.#queued.has(group) || this.#flushScheduled;
  }

  /** Whether any change is still to be re-run: matched, queued or running. */
  get busy(): boolean {
    // Counters, not a walk of the groups: this runs every turn while 65,536 re-runs drain.
    return (
      this.#flushScheduled || this.#pumpScheduled || this.#queued.size > 0 || this.#inFlight > 0
    );
  }

  changed(changes: readonly TableChange[]): void {
    if (!this.#options.coalesce) return this.#rerunReaders(changes);
    this.#pendingChanges.push(...changes);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = keepServing("matching a burst of writes to live subscriptions", () => {
    this.#flushScheduled = false;
    const burst = this.#pendingChanges;
    this.#pendingChanges = [];
    this.#rerunReaders(burst);
  });

  #rerunReaders(changes: readonly TableChange[]): void {
    const affected = new Set<WatchGroup>();
    if (changes.some(({ table }) => table === ANY_TABLE))
      for (const group of this.#groups.values()) affected.add(group);
    else
      for (const change of changes) {
        this.#groups.index.collect(change, affected);
        for (const group of this.#running)
          if (group.reading?.touchedBy(change)) affected.add(group);
      }
    if (debugLive && affected.size > 0) this.#logCauses(changes, affected);
    for (const group of affected) this.rerun(group);
  }

  #logCauses(changes: readonly TableChange[], affected: ReadonlySet<WatchGroup>): void {
    const groups = [...affected].map((group) => ({
      command: group.command,
      reads: group.reading ?? group.reads,
      uris: new Set([...group.subscribers.keys()].map((subscriber) => subscriber.uri)),
    }));
    logCauses(changes, groups, this.#options.valueText());
  }

  /** `group` is owed a run: queued, or run again after the one in progress. */
  rerun(group: WatchGroup): void {
    const { coalesce } = this.#options;
    if (group.running) group.owed = coalesce ? 1 : group.owed + 1;
    else if (!this.#queued.has(group)) this.#queued.add(group, holdersOf(group));
    else if (!coalesce) group.owed += 1;
    this.#schedulePump();
  }

  #schedulePump(): void {
    if (this.#pumpScheduled || this.#queued.size === 0) return;
    this.#pumpScheduled = true;
    setImmediate(this.#pumpTurn);
  }

  readonly #pumpTurn = keepServing("starting queued re-runs of live subscriptions", () => {
    this.#pumpScheduled = false;
    this.#pump();
  });

  /** Starts queued re-runs until the slice ends or enough are in flight; the rest wait a turn. */
  #pump(): void {
    const sliceEnd = performance.now() + RERUN_SLICE_MS;
    while (
      this.#queued.size > 0 &&
      this.#inFlight < RERUN_CONCURRENCY &&
      performance.now() < sliceEnd
    ) {
      const group = this.#queued.take()!;
      if (this.#groups.holds(group)) this.run(group);
    }
    this.#schedulePump();
  }

  /** Runs `group` now (its first run, or one the queue started). */
  run(group: WatchGroup): void {
    this.#inFlight += 1;
    this.#running.add(group);
    group.running = this.#options
      .execute(group)
      .catch(this.#runFailed)
      .then(() => this.#ran(group));
  }

  readonly #runFailed = failureLog("re-running a live subscription");

  readonly #ran = keepServing("ending a re-run of a live subscription", (group: WatchGroup) => {
    this.#inFlight -= 1;
    this.#running.delete(group);
    group.running = undefined;
    if (group.owed > 0 && this.#groups.holds(group)) {
      group.owed -= 1;
      this.#queued.add(group, holdersOf(group));
    }
    this.#schedulePump();
    if (this.#inFlight === 0 && this.#queued.size === 0) this.#options.failures.report();
  });
}
