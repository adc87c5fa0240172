import type { AuthInfo } from "@modelcontextprotocol/server";
import { Origin } from "../context.ts";
import type { App } from "../app.ts";
import { cutText } from "../cutText.ts";
import { ANY_TABLE } from "../db/anyTable.ts";

/** What a group last "returned" when its run threw; no JSON text looks like it. */
const FAILED = "\u0000failed";

/**
 * Re-runs after a write go through a queue drained in slices: at most this many runs in flight
 * (an async driver's pool is not flooded) and at most this long started per event-loop turn,
 * so that a write re-running 65,536 subscriptions never holds up a read for more than a slice.
 */
const RERUN_CONCURRENCY = 32;
const RERUN_SLICE_MS = 4;

/** One place a change is delivered: a client's subscription to the URI it sent. */
export interface Subscriber {
  readonly uri: string;
  notify(uri: string): void;
}

export interface LiveRegistryOptions {
  /** Re-run each affected (command, arguments) once per burst of writes (default) rather than once per write. */
  coalesce?: boolean;
  /**
   * Told once per command per burst of re-runs when any of its re-runs threw (the subscriptions
   * stay). Defaults to a line on stderr.
   */
  onError?: (failure: RerunFailure) => void;
}

/** The re-runs of one command that threw in one burst: how many, and the first of them. */
export interface RerunFailure {
  readonly command: string;
  readonly failures: number;
  readonly error: unknown;
  readonly args: readonly unknown[];
}

export interface LiveStats {
  subscriptions: number;
  /** Distinct (command, arguments): each is re-run once per change however many watch it. */
  groups: number;
  reruns: number;
  notifications: number;
}

/** Every subscription to one (command, arguments), and what it last returned. */
interface Group {
  readonly key: string;
  readonly command: string;
  readonly args: readonly unknown[];
  /** Whom the runs are for: what one principal may see another may not, so each has its group. */
  readonly auth: AuthInfo | undefined;
  readonly subscribers: Set<Subscriber>;
  /** Tables the last run read; undefined until the first run ends (then any change counts). */
  reads: Set<string> | undefined;
  lastResult: string | undefined;
  running: Promise<void> | undefined;
  /** Changes that arrived during a run: runs still owed (at most one when coalescing). */
  owed: number;
}

/**
 * Live subscriptions: each holds a command and its arguments. When a write changes a table the
 * command read, the command is re-run (as the agent, through the middleware) and subscribers are
 * notified only if the result changed.
 */
export class LiveRegistry {
  readonly #app: App;
  readonly #coalesce: boolean;
  readonly #onError: NonNullable<LiveRegistryOptions["onError"]>;
  readonly #groups = new Map<string, Group>();
  readonly #groupsByTable = new Map<string, Set<Group>>();
  readonly #pendingTables = new Set<string>();
  #flushScheduled = false;
  /** Groups owed a re-run, in the order the writes reached them. */
  readonly #queued = new Set<Group>();
  #pumpScheduled = false;
  #inFlight = 0;
  readonly #burstFailures = new Map<string, RerunFailure>();
  #reruns = 0;
  #notifications = 0;
  readonly #stopListening: () => void;

  constructor(app: App, options: LiveRegistryOptions = {}) {
    this.#app = app;
    this.#coalesce = options.coalesce ?? true;
    this.#onError = options.onError ?? logRerunError;
    this.#stopListening = app.onChange((changes) =>
      this.#changed(changes.map(({ table }) => table)),
    );
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
    const key = JSON.stringify([command, args, principalKey(auth)]);
    let group = this.#groups.get(key);
    if (!group) {
      group = {
        key,
        command,
        args,
        auth,
        subscribers: new Set(),
        reads: undefined,
        lastResult: undefined,
        running: undefined,
        owed: 0,
      };
      this.#groups.set(key, group);
      this.#run(group);
    }
    group.subscribers.add(subscriber);
    const current = group;
    await current.running;
    return () => this.#remove(current, subscriber);
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
    await this.#app.changesCaughtUp();
    // Counters, not a walk of the groups: this runs every turn while 65,536 re-runs drain.
    while (
      this.#flushScheduled ||
      this.#pumpScheduled ||
      this.#queued.size > 0 ||
      this.#inFlight > 0
    )
      await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * Stops re-running on writes. Subscriptions stay until their owners remove them, so that
   * `stats()` after a shutdown still tells whether every connection cleaned up after itself.
   */
  close(): void {
    this.#stopListening();
  }

  #changed(tables: readonly string[]): void {
    if (!this.#coalesce) return this.#rerunReaders(tables);
    for (const table of tables) this.#pendingTables.add(table);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const burst = [...this.#pendingTables];
      this.#pendingTables.clear();
      this.#rerunReaders(burst);
    });
  }

  #rerunReaders(tables: readonly string[]): void {
    const affected = new Set<Group>();
    const everything = tables.includes(ANY_TABLE);
    for (const table of [...tables, ANY_TABLE])
      for (const group of this.#groupsByTable.get(table) ?? []) affected.add(group);
    for (const group of this.#groups.values())
      if (everything || group.reads === undefined) affected.add(group);
    for (const group of affected) this.#rerun(group);
  }

  #rerun(group: Group): void {
    if (group.running) group.owed = this.#coalesce ? 1 : group.owed + 1;
    else if (!this.#queued.has(group)) this.#queued.add(group);
    else if (!this.#coalesce) group.owed += 1;
    this.#schedulePump();
  }

  #schedulePump(): void {
    if (this.#pumpScheduled || this.#queued.size === 0) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Starts queued re-runs until the slice ends or enough are in flight; the rest wait a turn. */
  #pump(): void {
    const sliceEnd = performance.now() + RERUN_SLICE_MS;
    for (const group of this.#queued) {
      if (this.#inFlight >= RERUN_CONCURRENCY || performance.now() >= sliceEnd) break;
      this.#queued.delete(group);
      if (this.#groups.get(group.key) === group) this.#run(group);
    }
    this.#schedulePump();
  }

  #run(group: Group): void {
    this.#inFlight += 1;
    group.running = this.#execute(group).then(() => {
      this.#inFlight -= 1;
      group.running = undefined;
      if (group.owed > 0 && this.#groups.get(group.key) === group) {
        group.owed -= 1;
        this.#queued.add(group);
      }
      this.#schedulePump();
      if (this.#inFlight === 0 && this.#queued.size === 0) this.#reportFailures();
    });
  }

  /** The end of a burst: one report per command whose re-runs threw, however many did. */
  #reportFailures(): void {
    for (const failure of this.#burstFailures.values()) this.#onError(failure);
    this.#burstFailures.clear();
  }

  #failed(group: Group, error: unknown): void {
    const earlier = this.#burstFailures.get(group.command);
    this.#burstFailures.set(
      group.command,
      earlier
        ? { ...earlier, failures: earlier.failures + 1 }
        : { command: group.command, failures: 1, error, args: group.args },
    );
  }

  async #execute(group: Group): Promise<void> {
    const first = group.reads === undefined;
    if (!first) this.#reruns += 1;
    const reads = new Set<string>();
    let result: string;
    try {
      result =
        JSON.stringify(
          await this.#app.run(group.command, group.args, {
            origin: Origin.Agent,
            observer: {
              read: (tableReads) => tableReads.forEach(({ table }) => reads.add(table)),
              sawPrincipal: () => {},
            },
            auth: group.auth,
          }),
        ) ?? "undefined";
      this.#index(group, reads);
    } catch (error) {
      if (!first) this.#failed(group, error);
      // What it read before failing (a missing row's table) is what can make it succeed.
      this.#index(group, reads.size > 0 ? reads : (group.reads ?? new Set()));
      // A read of the URI now fails (the customer was deleted): that is a change to tell.
      result = FAILED;
    }
    if (result === group.lastResult) return;
    const changed = !first;
    group.lastResult = result;
    if (!changed || !this.#groups.has(group.key)) return;
    for (const subscriber of group.subscribers) {
      this.#notifications += 1;
      subscriber.notify(subscriber.uri);
    }
  }

  #index(group: Group, reads: Set<string>): void {
    for (const table of group.reads ?? [])
      if (!reads.has(table)) this.#groupsByTable.get(table)?.delete(group);
    for (const table of reads) {
      let groups = this.#groupsByTable.get(table);
      if (!groups) this.#groupsByTable.set(table, (groups = new Set()));
      groups.add(group);
    }
    group.reads = reads;
  }

  #remove(group: Group, subscriber: Subscriber): void {
    group.subscribers.delete(subscriber);
    if (group.subscribers.size > 0 || this.#groups.get(group.key) !== group) return;
    this.#groups.delete(group.key);
    for (const table of group.reads ?? []) {
      const groups = this.#groupsByTable.get(table);
      groups?.delete(group);
      if (groups?.size === 0) this.#groupsByTable.delete(table);
    }
  }
}

/** Who a principal is, for grouping: its client and scopes (the token itself may be renewed). */
function principalKey(auth: AuthInfo | undefined): string | null {
  return auth === undefined ? null : `${auth.clientId}\u0000${[...auth.scopes].sort().join(" ")}`;
}

function logRerunError(failure: RerunFailure): void {
  process.stderr.write(`livecmd: ${describeRerunFailure(failure)}\n`);
}

/** What went wrong in a burst's re-runs of one command, for a log line or a server's `onerror`. */
export function describeRerunFailure({ command, failures, error, args }: RerunFailure): string {
  const message = error instanceof Error ? error.message : String(error);
  const others =
    failures === 1 ? "" : `; so did ${failures - 1} more re-runs of ${command} in this burst`;
  return `re-running ${command}(${JSON.stringify(args).slice(1, -1)}) for its subscribers failed: ${cutText(message, 300)}${others}; the subscriptions stay`;
}
