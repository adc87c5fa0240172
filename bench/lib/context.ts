import type { BenchContext } from "./section.ts";

/** A context whose `once` measures each key once per run, shared by the rows that need it. */
export function createContext(): BenchContext {
  const measured = new Map<string, Promise<unknown>>();
  return {
    once<T>(key: string, measure: () => Promise<T>): Promise<T> {
      if (!measured.has(key)) measured.set(key, measure());
      return measured.get(key) as Promise<T>;
    },
    log: (text) => process.stderr.write(`${text}\n`),
  };
}
