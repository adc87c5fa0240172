import type { ScanFilter, WholeReason } from "../../wholeReason.ts";
import { registersWritten } from "./opcodes.ts";
import type { ProgramStep } from "./sqliteProgram.ts";
import type { Btree } from "../sqliteSchema.ts";

const COMPARISONS = new Set(["Eq", "Ne", "Lt", "Le", "Gt", "Ge"]);
const MATCHES = { like: "LIKE", glob: "GLOB", regexp: "REGEXP" } as const;
/** How many functions deep a filter's column is looked for: `LOWER(name) LIKE ?` is one. */
const FUNCTION_DEPTH = 3;

export const EXPRESSION_INDEX: WholeReason = {
  kind: "unknown",
  what: "looked up through an index on an expression or a collation livecmd does not key on",
};

/** A program with an opcode livecmd does not read: every table it opens is whole. */
export function unknownOpcode(opcode: string): WholeReason {
  return { kind: "unknown", what: `its program has ${opcode}, which livecmd does not read` };
}

/**
 * Why a loop over `cursor` that `planReads` found no filter to test reads its table whole: a
 * scan, with the first test of a column its rows go through (a `LIKE` first, as in `LOWER(name)
 * LIKE ?`, which livecmd does not evaluate). `planReads` decides whether; this only says what the
 * scan tests.
 */
export function scanReason(
  program: readonly ProgramStep[],
  cursor: number,
  btree: Btree,
): WholeReason {
  const filter = new ProgramReading(program).filterOf(cursor, btree);
  return filter ? { kind: "scan", filter } : { kind: "scan" };
}

class ProgramReading {
  readonly #writers = new Map<number, ProgramStep[]>();

  constructor(private readonly program: readonly ProgramStep[]) {
    for (const step of program)
      for (const register of registersWritten(step) ?? []) {
        const writers = this.#writers.get(register) ?? [];
        writers.push(step);
        this.#writers.set(register, writers);
      }
  }

  /** The first pattern match on a column of `cursor`'s rows, else the first comparison of one. */
  filterOf(cursor: number, btree: Btree): ScanFilter | undefined {
    for (const step of this.program) {
      const match = /^(like|glob|regexp)\((\d+)\)$/.exec(String(step.p4));
      if (!match || (step.opcode !== "Function" && step.opcode !== "PureFunc")) continue;
      const column = this.#columnIn(span(step.p2, Number(match[2])), cursor, FUNCTION_DEPTH);
      if (column !== undefined)
        return {
          column: columnName(btree, column),
          match: MATCHES[match[1] as keyof typeof MATCHES],
        };
    }
    for (const step of this.program) {
      if (!COMPARISONS.has(step.opcode)) continue;
      const column = this.#columnIn([step.p1, step.p3], cursor, FUNCTION_DEPTH);
      if (column !== undefined) return { column: columnName(btree, column) };
    }
    return undefined;
  }

  /** The column of `cursor` that one of `registers` is read from, through functions `depth` deep. */
  #columnIn(registers: readonly number[], cursor: number, depth: number): number | undefined {
    for (const register of registers)
      for (const writer of this.#writers.get(register) ?? []) {
        if (writer.opcode === "Column" && writer.p1 === cursor) return writer.p2;
        const nested = /\((\d+)\)$/.exec(String(writer.p4));
        if (depth > 0 && nested && (writer.opcode === "Function" || writer.opcode === "PureFunc")) {
          const column = this.#columnIn(span(writer.p2, Number(nested[1])), cursor, depth - 1);
          if (column !== undefined) return column;
        }
      }
    return undefined;
  }
}

function span(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

/** A b-tree's field by its position, as its table names it. */
function columnName(btree: Btree, column: number): string {
  const field = btree.fields[column];
  return field === "rowid" ? "rowid" : (field?.name ?? "a column");
}
