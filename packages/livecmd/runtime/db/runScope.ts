import { AsyncLocalStorage } from "node:async_hooks";
import type { TableObserver } from "./database.ts";

/** The command run in progress in each async context, as the observer told what it reads. */
const runs = new AsyncLocalStorage<TableObserver>();

/**
 * Runs `fn` as a command run that `observer` is told about: a statement the app makes through
 * its database handle belongs to the run in whose async context it executes (where a query was
 * built or a statement prepared does not matter), so a module-level `drizzle(sqlite)` or a
 * statement prepared once and run by many commands reports to each run that executes it.
 */
export function observedRun<T>(observer: TableObserver, fn: () => T): T {
  return runs.run(observer, fn);
}

/** The observer of the run the caller is part of; undefined outside any observed run. */
export function runObserver(): TableObserver | undefined {
  return runs.getStore();
}
