import type { SqliteConnection } from "../sqliteConnection.ts";

/** One instruction of SQLite's program for a statement, as `EXPLAIN` lists it. */
export interface ProgramStep {
  readonly addr: number;
  readonly opcode: string;
  readonly p1: number;
  readonly p2: number;
  readonly p3: number;
  readonly p4: unknown;
  readonly p5: number;
}

const NAMED_PARAMETER = /(?<![\w$@:])[:@$]([A-Za-z_][A-Za-z0-9_]*)/g;
const MAX_POSITIONAL = 999;

/** Whether `sql` may name parameters (`:id`, `@id`, `$id`), which EXPLAIN does not tell apart by name. */
export function mayNameParameters(sql: string): boolean {
  return new RegExp(NAMED_PARAMETER.source).test(sql);
}

/**
 * SQLite's program for `sql`. EXPLAIN still wants every parameter bound. Values do not change the
 * program's shape, so nulls do; the positional count is found by trying, since better-sqlite3
 * does not expose it (node:sqlite binds a missing parameter as NULL: it answers at the first try).
 */
export function explainProgram(connection: SqliteConnection, sql: string): ProgramStep[] {
  const statement = connection.prepare(`EXPLAIN ${sql}`);
  const names = [...sql.matchAll(NAMED_PARAMETER)].map((match) => match[1]!);
  const named = names.length > 0 ? [Object.fromEntries(names.map((name) => [name, null]))] : [];
  for (let positional = 0; positional <= MAX_POSITIONAL; positional += 1) {
    try {
      return statement.all(...new Array(positional).fill(null), ...named) as ProgramStep[];
    } catch (error) {
      if (!(error instanceof RangeError) || !/Too few parameter/.test(error.message)) throw error;
    }
  }
  throw new Error(`livecmd: could not bind the parameters of ${sql} to explain it`);
}
