import { Origin } from "../model/context.ts";
import type { AppEngine } from "../model/appEngine.ts";
import { FAILED } from "./lastResult.ts";
import { ReadSet, type Matching } from "./readSet.ts";
import type { BurstFailures } from "./rerunFailures.ts";
import { notifiedVersion, resultText } from "./resultVersion.ts";
import type { UnseenReads } from "./unseenReads.ts";
import type { WatchGroup, WatchGroups } from "./watchGroups.ts";

export interface ObservedRunsOptions {
  readonly engine: AppEngine;
  readonly groups: WatchGroups;
  readonly matching: Matching;
  /** The re-runs that threw, told when the burst drains. */
  readonly failures: BurstFailures;
  readonly unseen: UnseenReads;
}

/**
 * A group's runs: its command run as the agent for its principal, observed for what it reads and
 * whether it looks at who runs it, then what it returned kept, and its subscribers notified when
 * a re-run found it changed. Counts the re-runs and the notifications.
 */
export class ObservedRuns {
  readonly #options: ObservedRunsOptions;
  #reruns = 0;
  #notifications = 0;

  constructor(options: ObservedRunsOptions) {
    this.#options = options;
  }

  get reruns(): number {
    return this.#reruns;
  }

  get notifications(): number {
    return this.#notifications;
  }

  async execute(group: WatchGroup): Promise<void> {
    const { groups, unseen } = this.#options;
    const first = group.reads === undefined;
    const started = first ? 0 : ++this.#reruns;
    const reads = new ReadSet(this.#options.matching);
    group.reading = reads;
    const mark = this.#options.engine.changeInterest()?.mark();
    const { result, failure, sawPrincipal } = await this.#runOnce(group, reads, first, started);
    unseen.ran(group.command, reads, result !== FAILED);
    // What a failed run read before failing (a missing row's table) is what can make it succeed;
    // one that failed before reading anything keeps what it read last.
    if (result !== FAILED || !reads.empty || !group.reads) groups.read(group, reads);
    // Changes routed to this process by what it watches: one made while the run read, before
    // its reads' routes were taken, is told now (matched against `reading` still).
    await this.#options.engine.changeInterest()?.fence(mark);
    group.reading = undefined;
    if (!groups.has(group.key)) return;
    const changed = !first && result !== group.lastResult;
    group.lastResult = result;
    group.failure = failure;
    if (changed) group.changedAt = Date.now();
    groups.regroup(group, sawPrincipal);
    if (!changed) return;
    const version = notifiedVersion(result);
    for (const subscriber of group.subscribers.keys()) {
      this.#notifications += 1;
      subscriber.notify(subscriber.uri, version);
    }
  }

  /** Runs `group`'s command into `reads`: its JSON text, or `FAILED` and why. */
  async #runOnce(
    group: WatchGroup,
    reads: ReadSet,
    first: boolean,
    started: number,
  ): Promise<{ result: string; failure?: string; sawPrincipal: boolean }> {
    const { engine, matching } = this.#options;
    let sawPrincipal = false;
    try {
      const returned = await engine.run(group.command, group.args, {
        origin: Origin.Agent,
        observer: {
          read: (tableReads) => reads.add(tableReads),
          narrowed: (told, tableReads) => reads.narrow(told, tableReads),
          sawPrincipal: () => (sawPrincipal = true),
          tablesOnly: matching === "tables",
        },
        auth: group.auth,
      });
      return { result: resultText(returned), sawPrincipal };
    } catch (error) {
      if (!first) this.#options.failures.add(group.command, group.args, error, started);
      // A read of the URI now fails (the customer was deleted): that is a change to tell.
      const failure = error instanceof Error ? error.message : String(error);
      return { result: FAILED, failure, sawPrincipal };
    }
  }
}
