import { AsyncResource } from "node:async_hooks";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { AppEngine, type RunObserver } from "../../packages/livecmd/runtime/model/appEngine.ts";
import { BusListener } from "../../packages/livecmd/runtime/db/postgres/bus/busListener.ts";
import { BusRoutes } from "../../packages/livecmd/runtime/db/postgres/bus/busRoutes.ts";
import type { WatchedReads } from "../../packages/livecmd/runtime/db/changeInterest.ts";

/**
 * livecmd broken on purpose, so that the checker is seen to catch what it exists to catch. Each
 * patches this process (the checker runs it in a process of its own): made before the app opens.
 */
export const FAULTS = {
  /** pg-pool's waiting connect callbacks run in the context of whoever freed a connection. */
  unbound(): void {
    AsyncResource.prototype.runInAsyncScope = function <This, Result>(
      fn: (this: This, ...args: unknown[]) => Result,
      thisArg?: This,
      ...args: unknown[]
    ): Result {
      return fn.apply(thisArg as This, args);
    };
  },
  /** One change in 1,000 the database reports never reaches the live registry. */
  drop(): void {
    let counted = 0;
    const onChange = AppEngine.prototype.onChange;
    AppEngine.prototype.onChange = function (listener) {
      return onChange.call(this, (changes: readonly TableChange[]) => {
        const kept = changes.filter(() => ++counted % 1_000 !== 0);
        if (kept.length > 0) listener(kept);
      });
    };
  },
  /** One statement in 200 is told to another run in progress instead of its own, when there is one. */
  misattribute(): void {
    const live = new Set<RunObserver>();
    let statements = 0;
    const { run } = AppEngine.prototype;
    AppEngine.prototype.run = function (name, args, options) {
      const { observer } = options;
      if (!observer) return run.call(this, name, args, options);
      const misread: RunObserver = {
        read(reads) {
          const other = ++statements % 200 === 0 && [...live].find((each) => each !== observer);
          try {
            (other || observer).read(reads);
          } catch {
            // A run that ended a moment ago takes no more reads: this one keeps its own.
            observer.read(reads);
          }
        },
        ...(observer.narrowed && { narrowed: observer.narrowed.bind(observer) }),
        ...(observer.tablesOnly !== undefined && { tablesOnly: observer.tablesOnly }),
        sawPrincipal: () => observer.sawPrincipal(),
      };
      live.add(observer);
      return run
        .call(this, name, args, { ...options, observer: misread })
        .finally(() => live.delete(observer));
    };
  },
  /**
   * On a bus, no watched read takes a route for the customer_tags table (the shop's tags, which
   * customers_show joins): a tag written by any process reaches no watcher. Every run writes
   * tags of watched customers, so every run has a change to miss, whatever the timing.
   */
  unrouted(): void {
    const { add } = BusRoutes.prototype;
    BusRoutes.prototype.add = function (watched) {
      add.call(this, withoutTable(watched, "customer_tags"));
    };
  },
  /**
   * On a bus, a run's new routes are not fenced: a change committed while the run read, before
   * the server had its routes, reaches nobody. The window is shorter than the relay's way to the
   * bus, so short runs rarely hit it (5 seeds did not): bus.test.ts checks the fence directly.
   */
  unfenced(): void {
    BusListener.prototype.fence = async () => {};
  },
} as const;

export type Fault = keyof typeof FAULTS;

function withoutTable(reads: WatchedReads, table: string): WatchedReads {
  const others = <T>(entries: Iterable<[string, T]>) =>
    new Map([...entries].filter(([name]) => name !== table));
  return {
    whole: new Set([...reads.whole].filter((name) => name !== table)),
    keyed: others(reads.keyed),
    filtered: others(reads.filtered),
  };
}

export function isFault(name: string): name is Fault {
  return Object.hasOwn(FAULTS, name);
}
