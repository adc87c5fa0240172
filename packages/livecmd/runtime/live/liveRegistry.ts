import type { AuthInfo } from "@modelcontextprotocol/server";
import type { App } from "../model/app.ts";
import { type AppEngine } from "../model/appEngine.ts";
import { engineOf } from "../model/attachedEngine.ts";
import type { LastResult } from "./lastResult.ts";
import { ObservedRuns } from "./observedRuns.ts";
import type { Matching } from "./readSet.ts";
import { keyValueText } from "./rerunCause.ts";
import { BurstFailures, logRerunError, type RerunFailure } from "./rerunFailures.ts";
import { RerunScheduler } from "./rerunScheduler.ts";
import { UnseenReads } from "./unseenReads.ts";
import {
  COHORT,
  groupKey,
  lastResultOf,
  principalKey,
  WatchGroups,
  type Subscriber,
} from "./watchGroups.ts";

/**
 * How many turns a caller waits for a group's owed runs (`settledResultOf`): enough for a burst
 * to be flushed, queued behind a full pump and run, and the run owed meanwhile.
 */
const SETTLE_TURNS = 64;

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

export interface LiveStats {
  subscriptions: number;
  /** Distinct (command, arguments[, principal]): each is re-run once per change however many watch it. */
  groups: number;
  reruns: number;
  notifications: number;
}

/**
 * Live subscriptions: each holds a command and its arguments. When a write changes a row the
 * command read (or a table it read whole), the command is re-run (as the agent, through the
 * middleware) and subscribers are notified only if the result changed. The groups and cohorts
 * are `WatchGroups`', when they run `RerunScheduler`'s, and a run itself `ObservedRuns`'.
 */
export class LiveRegistry {
  readonly #engine: AppEngine;
  readonly #groups: WatchGroups;
  readonly #scheduler: RerunScheduler;
  readonly #runs: ObservedRuns;
  readonly #unseen: UnseenReads;
  /** First runs in progress, by their cohort's key. */
  readonly #learning = new Map<string, Promise<void>>();
  readonly #stopListening: () => void;

  constructor(app: App, options: LiveRegistryOptions = {}) {
    const engine = (this.#engine = engineOf(app));
    const groups = (this.#groups = new WatchGroups(
      (group) => this.#scheduler.rerun(group),
      () => engine.changeInterest(),
    ));
    const failures = new BurstFailures(options.onError ?? logRerunError);
    const unseen = (this.#unseen = new UnseenReads(
      engine,
      options.onUnseen ?? ((warning) => process.stderr.write(`livecmd: ${warning}\n`)),
    ));
    const matching = options.matching ?? "rows";
    this.#runs = new ObservedRuns({ engine, groups, matching, failures, unseen });
    this.#scheduler = new RerunScheduler({
      groups,
      coalesce: options.coalesce ?? true,
      execute: (group) => this.#runs.execute(group),
      failures,
      valueText: () => keyValueText(engine.db),
    });
    this.#stopListening = engine.onChange((changes) => this.#scheduler.changed(changes));
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
      group = this.#groups.create(own, command, args, auth);
      this.#scheduler.run(group);
      this.#learnFrom(cohort, group.running!);
    }
    group.subscribers.set(subscriber, auth);
    await group.running;
    return () => this.#groups.remove(subscriber, [groupKey(command, args, COHORT), own]);
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
    return this.#groups.groupOf(command, args, auth)?.lastResult;
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
      const group = this.#groups.groupOf(command, args, auth);
      if (!group) return undefined;
      if (group.running) await group.running;
      else if (this.#scheduler.owes(group)) await new Promise((resolve) => setImmediate(resolve));
      else break;
    }
    return this.resultOf(command, args, auth);
  }

  /** What the group of `command(...args)` for `auth` returns now, as last run; undefined when not watched. */
  resultOf(command: string, args: readonly unknown[], auth?: AuthInfo): LastResult | undefined {
    const group = this.#groups.groupOf(command, args, auth);
    return group && lastResultOf(group);
  }

  stats(): LiveStats {
    return {
      subscriptions: this.#groups.subscriptions(),
      groups: this.#groups.size,
      reruns: this.#runs.reruns,
      notifications: this.#runs.notifications,
    };
  }

  /** Resolves once every change so far has been re-run and notified (tests and shutdown use it). */
  async settled(): Promise<void> {
    await this.#engine.changesCaughtUp();
    while (this.#scheduler.busy) await new Promise((resolve) => setImmediate(resolve));
  }

  /** The commands watched whose runs made no statement livecmd saw, each named once on the log. */
  unseen(): readonly string[] {
    return this.#unseen.commands;
  }

  /**
   * Stops re-running on writes. Subscriptions stay until their owners remove them, so that
   * `stats()` after a shutdown still tells whether every connection cleaned up after itself.
   */
  close(): void {
    this.#stopListening();
  }
}
