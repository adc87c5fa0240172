import { unfollowed } from "../../wholeReason.ts";
import type { SqliteConnection } from "../sqliteConnection.ts";
import type { SqliteSchema } from "../sqliteSchema.ts";
import { registersWritten } from "./opcodes.ts";
import { planReads, type PlannedRead } from "./planReads.ts";
import { explainProgram, mayNameParameters } from "./sqliteProgram.ts";

/** What livecmd knows of one statement: the rows it reads, as planned, and whether it may write. */
export interface StatementPlan {
  readonly reads: readonly PlannedRead[];
  /** It opens a table for writing, or does something livecmd's read analysis does not know (DDL, a pragma). */
  readonly mayWrite: boolean;
}

const NAMED_PARAMETERS = unfollowed(
  "named parameters (:id, @id, $id), which EXPLAIN does not tell apart",
);

/** A statement's plan, read off SQLite's own program for it (`EXPLAIN`) on `connection`. */
export function planStatement(
  connection: SqliteConnection,
  schema: SqliteSchema,
  sql: string,
): StatementPlan {
  const program = explainProgram(connection, sql);
  const reads = planReads(program, schema);
  const mayWrite = program.some(
    (step) => step.opcode === "OpenWrite" || registersWritten(step) === undefined,
  );
  // EXPLAIN does not say which parameter a name is: values could not be found by name.
  return {
    reads: mayNameParameters(sql)
      ? [...new Set(reads.map(({ table }) => table))].map((table) => ({
          table,
          reason: NAMED_PARAMETERS,
        }))
      : reads,
    mayWrite,
  };
}
