import { AsyncLocalStorage } from "node:async_hooks";
import type { TableObserver } from "./database.ts";

/**
 * The command runs of one app in progress, one per async context: a statement the app makes
 * through its database handle belongs to the run in whose async context it executes (where a
 * query was built or a statement prepared does not matter), so a module-level `drizzle(sqlite)`,
 * or a statement prepared once and run by many commands, reports to each run that executes it.
 * Each app has its own: a statement on one app's database is never told to another app's run.
 */
export class RunScope {
  readonly #runs = new AsyncLocalStorage<TableObserver>();

  /** Runs `fn` as a command run that `observer` is told about. */
  run<T>(observer: TableObserver, fn: () => T): T {
    return this.#runs.run(observer, fn);
  }

  /** The observer of the run the caller is part of; undefined outside any observed run. */
  observer(): TableObserver | undefined {
    return this.#runs.getStore();
  }
}
