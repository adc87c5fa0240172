import type { AuthInfo } from "@modelcontextprotocol/server";
import { Origin } from "../context.ts";
import type { App } from "../app.ts";
import { ANY_TABLE } from "../db/anyTable.ts";

/** What a group last "returned" when its run threw; no JSON text looks like it. */
const FAILED = "\u0000failed";

/** One place a change is delivered: a client's subscription to the URI it sent. */
export interface Subscriber {
  readonly uri: string;
  notify(uri: string): void;
}

export interface LiveRegistryOptions {
  /** Re-run each affected (command, arguments) once per burst of writes (default) rather than once per write. */
  coalesce?: boolean;
  /** Told when a re-run throws; the subscription stays. Defaults to a line on stderr. */
  onError?: (error: unknown, command: string, args: readonly unknown[]) => void;
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
  #reruns = 0;
  #notifications = 0;
  readonly #stopListening: () => void;

  constructor(app: App, options: LiveRegistryOptions = {}) {
    this.#app = app;
    this.#coalesce = options.coalesce ?? true;
    this.#onError = options.onError ?? logRerunError;
    this.#stopListening = app.onChange((tables) => this.#changed(tables));
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
    while (this.#flushScheduled || [...this.#groups.values()].some((group) => group.running)) {
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([...this.#groups.values()].map((group) => group.running));
    }
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
    if (!group.running) return this.#run(group);
    group.owed = this.#coalesce ? 1 : group.owed + 1;
  }

  #run(group: Group): void {
    group.running = this.#execute(group).then(() => {
      group.running = undefined;
      if (group.owed > 0 && this.#groups.get(group.key) === group) {
        group.owed -= 1;
        this.#run(group);
      }
    });
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
            reads,
            auth: group.auth,
          }),
        ) ?? "undefined";
      this.#index(group, reads);
    } catch (error) {
      if (!first) this.#onError(error, group.command, group.args);
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

function logRerunError(error: unknown, command: string, args: readonly unknown[]): void {
  process.stderr.write(`livecmd: ${describeRerunFailure(error, command, args)}\n`);
}

/** What went wrong in a re-run, for a log line or a server's `onerror`. */
export function describeRerunFailure(
  error: unknown,
  command: string,
  args: readonly unknown[],
): string {
  const message = error instanceof Error ? error.message : String(error);
  return `re-running ${command}(${JSON.stringify(args).slice(1, -1)}) for its subscribers failed: ${message}; the subscriptions stay`;
}
