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
  readonly #endListeners = new Set<(run: TableObserver) => void>();

  /**
   * Runs `fn` as a command run that `observer` is told about; once its promise settles, the run
   * has ended, and `onEnded`'s listeners are told (what it left open on the handle is theirs).
   */
  async run<T>(observer: TableObserver, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.#runs.run(observer, fn);
    } finally {
      for (const ended of this.#endListeners) ended(observer);
    }
  }

  /** The observer of the run the caller is part of; undefined outside any observed run. */
  observer(): TableObserver | undefined {
    return this.#runs.getStore();
  }

  /** Calls `listener` with every run once it has ended; returns an unsubscribe. */
  onEnded(listener: (run: TableObserver) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }
}
