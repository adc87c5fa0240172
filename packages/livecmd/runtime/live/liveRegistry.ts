import type { AuthInfo } from "@modelcontextprotocol/server";
import { Origin } from "../model/context.ts";
import type { App } from "../model/app.ts";
import { type AppEngine } from "../model/appEngine.ts";
import { engineOf } from "../model/attachedEngine.ts";
import { ANY_TABLE } from "../db/anyTable.ts";
import type { TableChange } from "../db/keyedAccess.ts";
import { principalOf } from "../model/principal.ts";
import { FairRerunQueue } from "./fairRerunQueue.ts";
import { failureLog, keepServing } from "../problems/keepServing.ts";
import { ReadIndex } from "./readIndex.ts";
import { NO_DATABASE, ReadSet, UNSEEN_FIX, type Matching } from "./readSet.ts";
import { keyValueText } from "./rerunCause.ts";
import { debugLive, logCauses } from "./rerunDebug.ts";
import { BurstFailures, logRerunError, type RerunFailure } from "./rerunFailures.ts";
import { resultText } from "./resultVersion.ts";

/** What a group last "returned" when its run threw; no JSON text looks like it. */
export const FAILED = "\u0000failed";

/**
 * Re-runs after a write go through a queue drained in slices: at most this many runs in flight
 * (an async driver's pool is not flooded) and at most this long started per event-loop turn,
 * so that a write re-running 65,536 subscriptions never holds up a read for more than a slice.
 * The queue takes holders in turn (`FairRerunQueue`), so that neither do they hold up another
 * holder's re-runs.
 */
const RERUN_CONCURRENCY = 32;
const RERUN_SLICE_MS = 4;

/**
 * How many turns a caller waits for a group's owed runs (`settledResultOf`): enough for a burst
 * to be flushed, queued behind a full pump and run, and the run owed meanwhile.
 */
const SETTLE_TURNS = 64;

/** One place a change is delivered: a client's subscription to the URI it sent. */
export interface Subscriber {
  readonly uri: string;
  notify(uri: string): void;
  /** Whom it counts against (`LiveRoomOptions.holderOf`): its group's re-runs take turns with other holders'. */
  readonly holder?: string;
}

export interface LiveRegistryOptions {
  /** Re-run each affected (command, arguments) once per burst of writes (default) rather than once per write. */
  coalesce?: boolean;
  /**
   * "rows" (default): a write re-runs the groups that read a row it touched. "tables": those that
   * read its table, as livecmd did before (the oracle the row matching is tested against).
   */
  matching?: Matching;
  /**
   * Told once per command per burst of re-runs when any of its re-runs threw (the subscriptions
   * stay). Defaults to a line on stderr.
   */
  onError?: (failure: RerunFailure) => void;
  /**
   * Told once per command the first time a run of it made no statement livecmd saw
   * (`unseenReadsWarning`). Defaults to a line on stderr.
   */
  onUnseen?: (warning: string) => void;
}

/** What a watched (command, arguments) returns now, as its group last ran it. */
export interface LastResult {
  /** Its JSON text (`resultText`), or `FAILED` when the run threw. */
  readonly text: string;
  /** The message of the run that threw, when `text` is `FAILED`. */
  readonly failure?: string;
  /** When a re-run last found it changed (ms since the epoch); undefined before the first change. */
  readonly changedAt?: number;
}

export interface LiveStats {
  subscriptions: number;
  /** Distinct (command, arguments[, principal]): each is re-run once per change however many watch it. */
  groups: number;
  reruns: number;
  notifications: number;
}

/**
 * Every subscription to one (command, arguments), and what it last returned. A group whose runs
 * never look at `ctx.auth` is one cohort for every principal; one whose runs do is per principal.
 */
interface Group {
  key: string;
  readonly command: string;
  readonly args: readonly unknown[];
  /** Whom the runs are for; any subscriber's principal when the group is a cohort. */
  readonly auth: AuthInfo | undefined;
  /** Each subscriber, with the principal it subscribed as. */
  readonly subscribers: Map<Subscriber, AuthInfo | undefined>;
  /** What the last run read (held in the index); undefined until the first run ends. */
  reads: ReadSet | undefined;
  /** What the run in progress has read so far. */
  reading: ReadSet | undefined;
  lastResult: string | undefined;
  /** The message of the last run, when it threw. */
  failure: string | undefined;
  /** When a re-run last found the result changed. */
  changedAt: number | undefined;
  running: Promise<void> | undefined;
  /** Changes that arrived during a run: runs still owed (at most one when coalescing). */
  owed: number;
}

/**
 * Live subscriptions: each holds a command and its arguments. When a write changes a row the
 * command read (or a table it read whole), the command is re-run (as the agent, through the
 * middleware) and subscribers are notified only if the result changed.
 */
export class LiveRegistry {
  readonly #engine: AppEngine;
  readonly #coalesce: boolean;
  readonly #matching: Matching;
  readonly #onUnseen: NonNullable<LiveRegistryOptions["onUnseen"]>;
  /** The commands a run of which made no statement livecmd saw, in the order first found. */
  readonly #unseen = new Set<string>();
  /** Statements the runs of watched groups made that livecmd saw, for `unseenReadsWarning`. */
  #statementsSeen = 0;
  readonly #groups = new Map<string, Group>();
  readonly #index = new ReadIndex<Group>();
  /** Groups with a run in progress: a change meanwhile is matched against what it read so far. */
  readonly #running = new Set<Group>();
  #pendingChanges: TableChange[] = [];
  #flushScheduled = false;
  /** Groups owed a re-run, by holder in the order the writes reached them. */
  readonly #queued = new FairRerunQueue<Group>();
  #pumpScheduled = false;
  #inFlight = 0;
  readonly #burstFailures: BurstFailures;
  #reruns = 0;
  /** First runs in progress, by their cohort's key. */
  readonly #learning = new Map<string, Promise<void>>();
  #notifications = 0;
  readonly #stopListening: () => void;

  constructor(app: App, options: LiveRegistryOptions = {}) {
    this.#engine = engineOf(app);
    this.#coalesce = options.coalesce ?? true;
    this.#matching = options.matching ?? "rows";
    this.#burstFailures = new BurstFailures(options.onError ?? logRerunError);
    this.#onUnseen =
      options.onUnseen ?? ((warning) => process.stderr.write(`livecmd: ${warning}\n`));
    this.#stopListening = this.#engine.onChange((changes) => this.#changed(changes));
  }

  /**
   * Watches `command(...args)` for `subscriber`; the first subscriber of a (command, arguments)
   * runs it once, to learn what it reads. Returns the function that ends this subscription.
   */
  async add(
    command: string,
    args: readonly unknown[],
    subscriber: Subscriber,
    auth?: AuthInfo,
  ): Promise<() => void> {
    const cohort = groupKey(command, args, COHORT);
    const own = groupKey(command, args, principalKey(auth));
    // Another principal's first run of these arguments is learning whether it looks at who runs
    // it: waited for, a run that does not look is shared as one cohort, not run twice.
    const learning = this.#learning.get(cohort);
    if (learning && !this.#groups.has(own)) await learning;
    let group = this.#groups.get(cohort) ?? this.#groups.get(own);
    if (!group) {
      group = this.#newGroup(own, command, args, auth);
      this.#run(group);
      this.#learnFrom(cohort, group.running!);
    }
    group.subscribers.set(subscriber, auth);
    await group.running;
    return () => this.#remove(subscriber, [groupKey(command, args, COHORT), own]);
  }

  #learnFrom(cohort: string, run: Promise<void>): void {
    if (this.#learning.has(cohort)) return;
    this.#learning.set(cohort, run);
    void run.finally(() => this.#learning.delete(cohort));
  }

  /**
   * What `command(...args)` last returned for `auth`'s group (its JSON text), undefined when
   * nobody watches it: a process taking over a 2025 session's subscriptions compares it with
   * what the client was last told of.
   */
  lastResultOf(command: string, args: readonly unknown[], auth?: AuthInfo): string | undefined {
    return this.#groupOf(command, args, auth)?.lastResult;
  }

  /**
   * What `command(...args)` returns for `auth` once the runs owed to it when asked (a write's
   * re-run queued or running) are done; undefined when nobody watches it. A watch compares this,
   * not a result a write has already made stale. Bounded: under a stream of writes it settles
   * for the result of the runs owed when it was asked.
   */
  async settledResultOf(
    command: string,
    args: readonly unknown[],
    auth?: AuthInfo,
  ): Promise<LastResult | undefined> {
    for (let turn = 0; turn < SETTLE_TURNS; turn++) {
      const group = this.#groupOf(command, args, auth);
      if (!group) return undefined;
      if (group.running) await group.running;
      else if (this.#queued.has(group) || this.#flushScheduled)
        await new Promise((resolve) => setImmediate(resolve));
      else break;
    }
    return this.resultOf(command, args, auth);
  }

  /** What the group of `command(...args)` for `auth` returns now, as last run; undefined when not watched. */
  resultOf(command: string, args: readonly unknown[], auth?: AuthInfo): LastResult | undefined {
    const group = this.#groupOf(command, args, auth);
    return group && this.#resultOf(group);
  }

  #resultOf(group: Group): LastResult | undefined {
    if (group.lastResult === undefined) return undefined;
    return {
      text: group.lastResult,
      ...(group.failure !== undefined && { failure: group.failure }),
      ...(group.changedAt !== undefined && { changedAt: group.changedAt }),
    };
  }

  #groupOf(
    command: string,
    args: readonly unknown[],
    auth: AuthInfo | undefined,
  ): Group | undefined {
    return (
      this.#groups.get(groupKey(command, args, COHORT)) ??
      this.#groups.get(groupKey(command, args, principalKey(auth)))
    );
  }

  stats(): LiveStats {
    let subscriptions = 0;
    for (const group of this.#groups.values()) subscriptions += group.subscribers.size;
    return {
      subscriptions,
      groups: this.#groups.size,
      reruns: this.#reruns,
      notifications: this.#notifications,
    };
  }

  /** Resolves once every change so far has been re-run and notified (tests and shutdown use it). */
  async settled(): Promise<void> {
    await this.#engine.changesCaughtUp();
    // Counters, not a walk of the groups: this runs every turn while 65,536 re-runs drain.
    while (
      this.#flushScheduled ||
      this.#pumpScheduled ||
      this.#queued.size > 0 ||
      this.#inFlight > 0
    )
      await new Promise((resolve) => setImmediate(resolve));
  }

  /** The commands watched whose runs made no statement livecmd saw, each named once on the log. */
  unseen(): readonly string[] {
    return [...this.#unseen];
  }

  /**
   * Stops re-running on writes. Subscriptions stay until their owners remove them, so that
   * `stats()` after a shutdown still tells whether every connection cleaned up after itself.
   */
  close(): void {
    this.#stopListening();
  }

  #newGroup(
    key: string,
    command: string,
    args: readonly unknown[],
    auth: AuthInfo | undefined,
  ): Group {
    const group: Group = {
      key,
      command,
      args,
      auth,
      subscribers: new Map(),
      reads: undefined,
      reading: undefined,
      lastResult: undefined,
      failure: undefined,
      changedAt: undefined,
      running: undefined,
      owed: 0,
    };
    this.#groups.set(key, group);
    return group;
  }

  #changed(changes: readonly TableChange[]): void {
    if (!this.#coalesce) return this.#rerunReaders(changes);
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
    const affected = new Set<Group>();
    if (changes.some(({ table }) => table === ANY_TABLE))
      for (const group of this.#groups.values()) affected.add(group);
    else
      for (const change of changes) {
        this.#index.collect(change, affected);
        for (const group of this.#running)
          if (group.reading?.touchedBy(change)) affected.add(group);
      }
    if (debugLive && affected.size > 0) this.#logCauses(changes, affected);
    for (const group of affected) this.#rerun(group);
  }

  #logCauses(changes: readonly TableChange[], affected: ReadonlySet<Group>): void {
    const groups = [...affected].map((group) => ({
      command: group.command,
      reads: group.reading ?? group.reads,
      uris: new Set([...group.subscribers.keys()].map((subscriber) => subscriber.uri)),
    }));
    logCauses(changes, groups, keyValueText(this.#engine.db));
  }

  #rerun(group: Group): void {
    if (group.running) group.owed = this.#coalesce ? 1 : group.owed + 1;
    else if (!this.#queued.has(group)) this.#queued.add(group, holdersOf(group));
    else if (!this.#coalesce) group.owed += 1;
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
      if (this.#groups.get(group.key) === group) this.#run(group);
    }
    this.#schedulePump();
  }

  #run(group: Group): void {
    this.#inFlight += 1;
    this.#running.add(group);
    group.running = this.#execute(group)
      .catch(this.#runFailed)
      .then(() => this.#ran(group));
  }

  readonly #runFailed = failureLog("re-running a live subscription");

  readonly #ran = keepServing("ending a re-run of a live subscription", (group: Group) => {
    this.#inFlight -= 1;
    this.#running.delete(group);
    group.running = undefined;
    if (group.owed > 0 && this.#groups.get(group.key) === group) {
      group.owed -= 1;
      this.#queued.add(group, holdersOf(group));
    }
    this.#schedulePump();
    if (this.#inFlight === 0 && this.#queued.size === 0) this.#burstFailures.report();
  });

  async #execute(group: Group): Promise<void> {
    const first = group.reads === undefined;
    const started = first ? 0 : ++this.#reruns;
    const reads = new ReadSet(this.#matching);
    let sawPrincipal = false;
    group.reading = reads;
    let result: string;
    let failure: string | undefined;
    try {
      result = resultText(
        await this.#engine.run(group.command, group.args, {
          origin: Origin.Agent,
          observer: {
            read: (tableReads) => reads.add(tableReads),
            narrowed: (told, tableReads) => reads.narrow(told, tableReads),
            sawPrincipal: () => (sawPrincipal = true),
            tablesOnly: this.#matching === "tables",
          },
          auth: group.auth,
        }),
      );
    } catch (error) {
      if (!first) this.#burstFailures.add(group.command, group.args, error, started);
      // A read of the URI now fails (the customer was deleted): that is a change to tell.
      result = FAILED;
      failure = error instanceof Error ? error.message : String(error);
    }
    group.reading = undefined;
    this.#statementsSeen += reads.statements;
    if (result !== FAILED && reads.unseen) this.#readsUnseen(group.command, reads);
    // What a failed run read before failing (a missing row's table) is what can make it succeed;
    // one that failed before reading anything keeps what it read last.
    if (result !== FAILED || !reads.empty || !group.reads) {
      if (group.reads) this.#index.remove(group, group.reads);
      group.reads = reads;
      this.#index.add(group, reads);
    }
    if (!this.#groups.has(group.key)) return;
    const changed = !first && result !== group.lastResult;
    group.lastResult = result;
    group.failure = failure;
    if (changed) group.changedAt = Date.now();
    this.#regroup(group, sawPrincipal);
    if (!changed) return;
    for (const subscriber of group.subscribers.keys()) {
      this.#notifications += 1;
      subscriber.notify(subscriber.uri);
    }
  }

  /** A run that made no statement livecmd saw is watched as reading every table, and named once. */
  #readsUnseen(command: string, reads: ReadSet): void {
    reads.seeNothing();
    if (this.#unseen.has(command)) return;
    this.#unseen.add(command);
    this.#onUnseen(
      unseenReadsWarning(
        command,
        this.#engine.hasDatabase
          ? { handle: this.#engine.db.handleText(), statements: this.#statementsSeen }
          : undefined,
      ),
    );
  }

  /**
   * A run that did not look at `ctx.auth` is the same for every principal allowed to run it: its
   * group becomes the cohort of its (command, arguments). A cohort whose run did look is split
   * into one group per principal, each re-run once as that principal.
   */
  #regroup(group: Group, sawPrincipal: boolean): void {
    const cohortKey = groupKey(group.command, group.args, COHORT);
    if (!sawPrincipal && group.key !== cohortKey) {
      const cohort = this.#groups.get(cohortKey);
      this.#groups.delete(group.key);
      if (!cohort) {
        group.key = cohortKey;
        this.#groups.set(cohortKey, group);
      } else {
        for (const [subscriber, auth] of group.subscribers)
          cohort.subscribers.set(subscriber, auth);
        this.#index.remove(group, group.reads!);
      }
    } else if (sawPrincipal && group.key === cohortKey) {
      this.#groups.delete(cohortKey);
      this.#index.remove(group, group.reads!);
      for (const [subscriber, auth] of group.subscribers) {
        const key = groupKey(group.command, group.args, principalKey(auth));
        let own = this.#groups.get(key);
        if (!own) {
          own = this.#newGroup(key, group.command, group.args, auth);
          own.reads = group.reads;
          own.lastResult = group.lastResult;
          own.failure = group.failure;
          own.changedAt = group.changedAt;
          this.#index.add(own, own.reads!);
          this.#rerun(own);
        }
        own.subscribers.set(subscriber, auth);
      }
    }
  }

  /** Ends one subscription: its group is the cohort, or its principal's own. */
  #remove(subscriber: Subscriber, keys: readonly string[]): void {
    for (const key of keys) {
      const group = this.#groups.get(key);
      if (!group?.subscribers.delete(subscriber)) continue;
      if (group.subscribers.size === 0) {
        this.#groups.delete(group.key);
        if (group.reads) this.#index.remove(group, group.reads);
      }
      return;
    }
  }
}

const COHORT = "\u0000cohort";

function groupKey(command: string, args: readonly unknown[], principal: string | null): string {
  return JSON.stringify([command, args, principal]);
}

/** The holders of `group`'s subscribers: the lanes of the re-run queue it waits in. */
function holdersOf(group: Group): Set<string | undefined> {
  const holders = new Set<string | undefined>();
  for (const subscriber of group.subscribers.keys()) holders.add(subscriber.holder);
  return holders;
}

/**
 * The group of a run that looks at `ctx.auth`: its principal (`principalOf`) and the scopes the
 * run sees, since what it returns may differ by scope for one principal (a client that stepped
 * up); not the token, which is renewed.
 */
function principalKey(auth: AuthInfo | undefined): string | null {
  const principal = principalOf(auth);
  return principal === undefined
    ? null
    : `${principal}\u0000${[...(auth?.scopes ?? [])].sort().join(" ")}`;
}

/**
 * What is said of a live command whose run made no statement livecmd saw, and what to do: where
 * livecmd watches (`AppDatabase.handleText`), and how many statements of other runs it saw there,
 * so that "none of this run's" is not taken for "none at all".
 */
export function unseenReadsWarning(
  command: string,
  watched: { handle: string; statements: number } | undefined,
): string {
  if (!watched) return `${command} is watched, but ${NO_DATABASE}`;
  const { handle, statements } = watched;
  const others = `${statements} ${statements === 1 ? "statement" : "statements"} of other runs`;
  return `${command} is watched, but its run made no statement through ${handle}, where livecmd watches (it saw ${others} there), so every write re-runs it: ${UNSEEN_FIX}`;
}
