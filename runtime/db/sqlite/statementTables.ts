import type { SqliteConnection } from "./sqliteConnection.ts";

/** The tables one SQL statement reads and writes. */
export interface TableAccess {
  reads: readonly string[];
  writes: readonly string[];
}

const NAMED_PARAMETER = /(?<![\w$@:])[:@$]([A-Za-z_][A-Za-z0-9_]*)/g;
const MAX_POSITIONAL = 999;

/**
 * Which tables a statement touches, read off SQLite's own program for it (`EXPLAIN`): every
 * `OpenRead`/`OpenWrite` names a b-tree by root page, and sqlite_schema maps root pages (of
 * tables and of their indexes) to table names. Views come out as the tables behind them.
 * Cached per SQL text, so each distinct statement is explained once.
 *
 * Not seen: tables touched only inside trigger programs or by foreign-key cascades (apps
 * that rely on them report those with `ctx.changed(table)`).
 */
export class StatementTables {
  readonly #cache = new Map<string, TableAccess>();
  #tablesByRootPage = new Map<number, string>();

  constructor(private readonly connection: SqliteConnection) {}

  of(sql: string): TableAccess {
    let access = this.#cache.get(sql);
    if (!access) {
      access = this.#explain(sql);
      this.#cache.set(sql, access);
    }
    return access;
  }

  #explain(sql: string): TableAccess {
    const reads = new Set<string>();
    const writes = new Set<string>();
    for (const step of explainProgram(this.connection, sql)) {
      if (step.p3 !== 0 || (step.opcode !== "OpenRead" && step.opcode !== "OpenWrite")) continue;
      const table = this.#tableAt(step.p2);
      if (table) (step.opcode === "OpenWrite" ? writes : reads).add(table);
    }
    return { reads: [...reads].sort(), writes: [...writes].sort() };
  }

  #tableAt(rootPage: number): string | undefined {
    if (!this.#tablesByRootPage.has(rootPage)) {
      const rows = this.connection
        .prepare("SELECT tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0")
        .all() as { tbl_name: string; rootpage: number }[];
      this.#tablesByRootPage = new Map(rows.map((row) => [row.rootpage, row.tbl_name]));
    }
    return this.#tablesByRootPage.get(rootPage);
  }
}

interface ProgramStep {
  opcode: string;
  p2: number;
  p3: number;
}

/**
 * EXPLAIN still wants every parameter bound. Values do not change the program's shape, so nulls
 * do; the positional count is found by trying, since better-sqlite3 does not expose it.
 */
function explainProgram(connection: SqliteConnection, sql: string): ProgramStep[] {
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
