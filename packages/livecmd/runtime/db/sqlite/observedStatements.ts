import type { HandleStatements } from "./sqliteLibrary.ts";

/** The statement methods that run it, each taking the parameters to bind. */
const RUNNERS = ["run", "get", "all", "iterate"] as const;

type Method = (this: object, ...args: unknown[]) => unknown;

/** Where one statement's runs are observed: its SQL, and the engine of its connection. */
export interface StatementHome {
  readonly sql: string;
  readonly statements: HandleStatements;
}

/**
 * Puts a method in front of each of `target`'s statement methods (a statement, or the class of
 * every statement of a library): a statement `homeOf` finds a home for runs through its engine,
 * any other as before. `bind` (better-sqlite3) keeps its parameters for the runs that pass none.
 * `arraysSpread`: an array of parameters stands for its elements (better-sqlite3 binds so).
 */
export function observeStatements(
  target: object,
  homeOf: (statement: object) => StatementHome | undefined,
  arraysSpread: boolean,
): void {
  const methods = target as Record<string, unknown>;
  const bound = new WeakMap<object, readonly unknown[]>();
  const positional = (params: readonly unknown[]): readonly unknown[] => {
    if (!arraysSpread) return params;
    // One array, as Kysely passes its parameters: those are the values, with no copy to make.
    if (params.length === 1 && Array.isArray(params[0])) return params[0] as unknown[];
    return params.some(Array.isArray)
      ? params.flatMap((param) => (Array.isArray(param) ? param : [param]))
      : params;
  };
  for (const name of RUNNERS) {
    const run = methods[name] as Method | undefined;
    if (typeof run !== "function") continue;
    methods[name] = function (this: object, ...params: unknown[]) {
      const home = homeOf(this);
      if (!home) return run.apply(this, params);
      const values = params.length > 0 ? positional(params) : (bound.get(this) ?? []);
      return home.statements.statement(home.sql, values, () => run.apply(this, params));
    };
  }
  const bind = methods.bind as Method | undefined;
  if (typeof bind === "function")
    methods.bind = function (this: object, ...params: unknown[]) {
      const result = bind.apply(this, params);
      bound.set(this, positional(params));
      return result;
    };
}
