import type { TableRead } from "../keyedAccess.ts";
import type { WholeReason } from "../wholeReason.ts";
import { registersWritten } from "./opcodes.ts";
import { planReads, type KeySource, type PlannedRead } from "./planReads.ts";
import type { SqliteConnection } from "./sqliteConnection.ts";
import { boundKey } from "./sqliteKeys.ts";
import { explainProgram, mayNameParameters } from "./sqliteProgram.ts";
import type { SqliteSchema } from "./sqliteSchema.ts";

/** What livecmd knows of one statement: the rows it reads, as planned, and whether it may write. */
export interface StatementPlan {
  readonly reads: readonly PlannedRead[];
  /** It opens a table for writing, or does something livecmd's read analysis does not know (DDL, a pragma). */
  readonly mayWrite: boolean;
}

/**
 * Statement plans, read off SQLite's own program for each statement (`EXPLAIN`) once per SQL
 * text, until the schema changes (root pages and indexes move then).
 */
export class StatementPlans {
  readonly #cache = new Map<string, StatementPlan>();

  constructor(
    private readonly connection: SqliteConnection,
    private readonly schema: () => SqliteSchema,
  ) {}

  of(sql: string): StatementPlan {
    let plan = this.#cache.get(sql);
    if (!plan) this.#cache.set(sql, (plan = this.#explain(sql)));
    return plan;
  }

  forget(): void {
    this.#cache.clear();
  }

  #explain(sql: string): StatementPlan {
    const program = explainProgram(this.connection, sql);
    const reads = planReads(program, this.schema());
    const mayWrite = program.some(
      (step) => step.opcode === "OpenWrite" || registersWritten(step) === undefined,
    );
    // EXPLAIN does not say which parameter a name is: key values could not be found by name.
    return {
      reads: mayNameParameters(sql) ? reads.map(({ table }) => ({ table, reason: NAMED })) : reads,
      mayWrite,
    };
  }
}

const NAMED: WholeReason = {
  kind: "unknown",
  what: "named parameters (:id), which EXPLAIN does not tell apart",
};
const UNCOMPARABLE: WholeReason = {
  kind: "unknown",
  what: "a key value livecmd cannot compare as SQLite would",
};

/** The rows a statement planned as `reads` reads when bound to `params`. */
export function boundReads(reads: readonly PlannedRead[], params: readonly unknown[]): TableRead[] {
  return reads.map((read) => {
    if (read.column === undefined) return read;
    const values = new Set<string>();
    for (const source of read.sources) {
      const key = boundKey(sourceValue(source, params), source.via, read.column);
      if (key === undefined) return { table: read.table, reason: UNCOMPARABLE };
      values.add(key);
    }
    return { table: read.table, column: read.column.key, values: [...values] };
  });
}

function sourceValue(source: KeySource, params: readonly unknown[]): unknown {
  return "param" in source ? params[source.param - 1] : source.constant;
}
