import type { AuthInfo } from "@modelcontextprotocol/server";
import { principalOf } from "../model/principal.ts";
import type { LastResult } from "./lastResult.ts";
import type { ChangeInterest } from "../db/changeInterest.ts";
import { ReadIndex } from "./readIndex.ts";
import type { ReadSet } from "./readSet.ts";

/**
 * Tells one watcher that `uri` changed, with the version of what it reads as now (`versionOf`);
 * no version when reading it now fails.
 */
export type Notify = (uri: string, version: string | undefined) => void;

/** One place a change is delivered: a client's subscription to the URI it sent. */
export interface Subscriber {
  readonly uri: string;
  readonly notify: Notify;
  /** Whom it counts against (`LiveRoomOptions.holderOf`): its group's re-runs take turns with other holders'. */
  readonly holder?: string;
}

/**
 * Every subscription to one (command, arguments), and what it last returned. A group whose runs
 * never look at `ctx.auth` is one cohort for every principal; one whose runs do is per principal.
 */
export interface WatchGroup {
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
 * The watched groups by key (a cohort's, or a principal's own), and what each last read, indexed
 * so that a change finds its readers. `rerun` is owed a run of a group split off a cohort.
 */
export class WatchGroups {
  readonly #groups = new Map<string, WatchGroup>();
  readonly index: ReadIndex<WatchGroup>;
  readonly #rerun: (group: WatchGroup) => void;

  constructor(rerun: (group: WatchGroup) => void, interest?: () => ChangeInterest | undefined) {
    this.#rerun = rerun;
    this.index = new ReadIndex(interest);
  }

  get size(): number {
    return this.#groups.size;
  }

  values(): IterableIterator<WatchGroup> {
    return this.#groups.values();
  }

  get(key: string): WatchGroup | undefined {
    return this.#groups.get(key);
  }

  /** Whether `group` is still the one watched under its key (not removed, not regrouped). */
  holds(group: WatchGroup): boolean {
    return this.#groups.get(group.key) === group;
  }

  has(key: string): boolean {
    return this.#groups.has(key);
  }

  /** The group of `command(...args)` for `auth`: the cohort, or the principal's own. */
  groupOf(
    command: string,
    args: readonly unknown[],
    auth: AuthInfo | undefined,
  ): WatchGroup | undefined {
    return (
      this.#groups.get(groupKey(command, args, COHORT)) ??
      this.#groups.get(groupKey(command, args, principalKey(auth)))
    );
  }

  /** How many subscriptions every group holds. */
  subscriptions(): number {
    let subscriptions = 0;
    for (const group of this.#groups.values()) subscriptions += group.subscribers.size;
    return subscriptions;
  }

  create(
    key: string,
    command: string,
    args: readonly unknown[],
    auth: AuthInfo | undefined,
  ): WatchGroup {
    const group: WatchGroup = {
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

  /** `group`'s run read `reads`: it is indexed by them from now, in place of what it read last. */
  read(group: WatchGroup, reads: ReadSet): void {
    if (group.reads) this.index.remove(group, group.reads);
    group.reads = reads;
    this.index.add(group, reads);
  }

  /**
   * A run that did not look at `ctx.auth` is the same for every principal allowed to run it: its
   * group becomes the cohort of its (command, arguments). A cohort whose run did look is split
   * into one group per principal, each re-run once as that principal.
   */
  regroup(group: WatchGroup, sawPrincipal: boolean): void {
    const cohortKey = groupKey(group.command, group.args, COHORT);
    if (!sawPrincipal && group.key !== cohortKey) this.#joinCohort(group, cohortKey);
    else if (sawPrincipal && group.key === cohortKey) this.#split(group);
  }

  #joinCohort(group: WatchGroup, cohortKey: string): void {
    const cohort = this.#groups.get(cohortKey);
    this.#groups.delete(group.key);
    if (!cohort) {
      group.key = cohortKey;
      this.#groups.set(cohortKey, group);
    } else {
      for (const [subscriber, auth] of group.subscribers) cohort.subscribers.set(subscriber, auth);
      this.index.remove(group, group.reads!);
    }
  }

  #split(cohort: WatchGroup): void {
    this.#groups.delete(cohort.key);
    this.index.remove(cohort, cohort.reads!);
    for (const [subscriber, auth] of cohort.subscribers) {
      const key = groupKey(cohort.command, cohort.args, principalKey(auth));
      let own = this.#groups.get(key);
      if (!own) {
        own = this.create(key, cohort.command, cohort.args, auth);
        own.reads = cohort.reads;
        own.lastResult = cohort.lastResult;
        own.failure = cohort.failure;
        own.changedAt = cohort.changedAt;
        this.index.add(own, own.reads!);
        this.#rerun(own);
      }
      own.subscribers.set(subscriber, auth);
    }
  }

  /** Ends one subscription: its group is the cohort, or its principal's own. */
  remove(subscriber: Subscriber, keys: readonly string[]): void {
    for (const key of keys) {
      const group = this.#groups.get(key);
      if (!group?.subscribers.delete(subscriber)) continue;
      if (group.subscribers.size === 0) {
        this.#groups.delete(group.key);
        if (group.reads) this.index.remove(group, group.reads);
      }
      return;
    }
  }
}

/** What `group` returns now, as last run; undefined before its first run ends. */
export function lastResultOf(group: WatchGroup): LastResult | undefined {
  if (group.lastResult === undefined) return undefined;
  return {
    text: group.lastResult,
    ...(group.failure !== undefined && { failure: group.failure }),
    ...(group.changedAt !== undefined && { changedAt: group.changedAt }),
  };
}

/** The principal part of a cohort's key: every principal's. */
export const COHORT = "\u0000cohort";

export function groupKey(
  command: string,
  args: readonly unknown[],
  principal: string | null,
): string {
  return JSON.stringify([command, args, principal]);
}

/** The holders of `group`'s subscribers: the lanes of the re-run queue it waits in. */
export function holdersOf(group: WatchGroup): Set<string | undefined> {
  const holders = new Set<string | undefined>();
  for (const subscriber of group.subscribers.keys()) holders.add(subscriber.holder);
  return holders;
}

/**
 * The group of a run that looks at `ctx.auth`: its principal (`principalOf`) and the scopes the
 * run sees, since what it returns may differ by scope for one principal (a client that stepped
 * up); not the token, which is renewed.
 */
export function principalKey(auth: AuthInfo | undefined): string | null {
  const principal = principalOf(auth);
  return principal === undefined
    ? null
    : `${principal}\u0000${[...(auth?.scopes ?? [])].sort().join(" ")}`;
}
