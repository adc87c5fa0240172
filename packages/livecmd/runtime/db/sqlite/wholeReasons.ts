import type { ScanFilter, WholeReason } from "../wholeReason.ts";
import { registersWritten } from "./opcodes.ts";
import type { ProgramStep } from "./sqliteProgram.ts";
import type { Btree } from "./sqliteSchema.ts";

const SCANS = new Set(["Rewind", "Last", "Count"]);
const RANGES = new Set([
  "SeekGE",
  "SeekGT",
  "SeekLE",
  "SeekLT",
  "IdxGT",
  "IdxGE",
  "IdxLT",
  "IdxLE",
]);
const COMPARISONS = new Set(["Eq", "Ne", "Lt", "Le", "Gt", "Ge"]);
const MATCHES = { like: "LIKE", glob: "GLOB", regexp: "REGEXP" } as const;
/** How many functions deep a filter's column is looked for: `LOWER(name) LIKE ?` is one. */
const FUNCTION_DEPTH = 3;

/**
 * Why a program reads a table whole, told from its cursors on the table (each with its b-tree):
 * a scan (`Rewind`), with the first test of a column its rows go through (a `LIKE` first); a
 * range seek; an index the lookup cannot key on; or, when no cursor says, values livecmd cannot
 * follow (a rowid read off another table's rows). `planReads` decides whether; this only says why.
 */
export function wholeReasonOf(
  program: readonly ProgramStep[],
  cursors: readonly (readonly [number, Btree])[],
): WholeReason {
  const unknown = program.find((step) => registersWritten(step) === undefined);
  if (unknown)
    return {
      kind: "unknown",
      what: `its program has ${unknown.opcode}, which livecmd does not read`,
    };
  const reading = new ProgramReading(program);
  const scanned = cursors.find(([cursor]) => reading.uses(cursor, SCANS));
  if (scanned) {
    const filter = reading.filterOf(scanned[0], scanned[1]);
    return filter ? { kind: "scan", filter } : { kind: "scan" };
  }
  const blind = cursors.find(([, btree]) => btree.kind === "index" && !btree.first);
  if (blind)
    return {
      kind: "unknown",
      what: "looked up through an index on an expression or a collation livecmd does not key on",
    };
  const ranged = cursors.find(([cursor]) => reading.uses(cursor, RANGES));
  if (ranged) return { kind: "range", column: keyName(ranged[1]) };
  return { kind: "unknown", what: "looked up by values read off other rows: a join, a subquery" };
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

  uses(cursor: number, opcodes: ReadonlySet<string>): boolean {
    return this.program.some((step) => step.p1 === cursor && opcodes.has(step.opcode));
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

function keyName(btree: Btree): string {
  return btree.kind === "index" ? (btree.first?.key ?? "an expression") : "rowid";
}

/** A table's column by its position (an index's entries name no column livecmd keeps). */
function columnName(btree: Btree, column: number): string {
  return (btree.kind === "rowid table" ? btree.columns?.[column] : undefined) ?? "a column";
}
