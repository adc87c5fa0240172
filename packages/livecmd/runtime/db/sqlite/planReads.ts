import { affinityLetters, conversions, registersWritten } from "./opcodes.ts";
import type { ProgramStep } from "./sqliteProgram.ts";
import type { Affinity, Btree, KeyColumn, SqliteSchema } from "./sqliteSchema.ts";
import type { WholeReason } from "../wholeReason.ts";
import { wholeReasonOf } from "./wholeReasons.ts";

/**
 * Where a key value comes from when the statement runs: a positional parameter (1-based) or a
 * constant of the program, converted on its way by the affinities in `via`.
 */
export type KeySource =
  | { readonly param: number; readonly via: readonly Affinity[] }
  | { readonly constant: string | bigint; readonly via: readonly Affinity[] };

/** How a statement reads a table, as planned: whole (and why), or through `column` = one of `sources`. */
export type PlannedRead =
  | { readonly table: string; readonly column?: undefined; readonly reason?: WholeReason }
  | { readonly table: string; readonly column: KeyColumn; readonly sources: readonly KeySource[] };

/** A register's possible values: known sources, or unknown (read off a row, computed...). */
type Values = readonly KeySource[] | "unknown";
/** The rows a cursor visits: every row, or those with a key column equal to some values. */
type Visited = "whole" | readonly { column: KeyColumn; sources: readonly KeySource[] }[];

const SEEKS_UP = new Set(["SeekGE", "SeekGT"]);
const SEEKS_DOWN = new Set(["SeekLE", "SeekLT"]);
const BOUNDS_UP = new Set(["IdxGT", "IdxGE"]);
const BOUNDS_DOWN = new Set(["IdxLT", "IdxLE"]);
/** Uses of a cursor that read its current row and move nothing. */
const ON_ROW = new Set(["Column", "Rowid", "IdxRowid", "RowData", "NullRow", "Close"]);
for (const opcode of ["CursorHint", "ColumnsUsed", "SeekHit", "FinishSeek", "IfNullRow"])
  ON_ROW.add(opcode);
/** Opcodes whose P1 is a cursor (DeferredSeek's P3 is one too, OpenDup's P2). */
const CURSOR_P1 = new Set([
  ...ON_ROW,
  ...SEEKS_UP,
  ...SEEKS_DOWN,
  ...BOUNDS_UP,
  ...BOUNDS_DOWN,
  ...["OpenRead", "OpenEphemeral", "OpenAutoindex", "OpenPseudo", "SorterOpen", "OpenDup"],
  ...["Rewind", "Last", "Next", "Prev", "SorterSort", "Sort", "SorterNext", "SorterCompare"],
  ...["SorterInsert", "SorterData", "SeekRowid", "NotExists", "DeferredSeek"],
  ...["Found", "NotFound", "NoConflict", "IfNoHope", "IdxInsert", "Insert"],
  ...["NewRowid", "Count", "Sequence", "VOpen", "VFilter", "VColumn", "VNext"],
]);

/**
 * Which rows of which tables a statement reads, from SQLite's program for it. A table is read
 * through a key when every cursor on it (or on one of its indexes) only ever lands on rows whose
 * key column equals a parameter or a constant: a rowid cursor moved only by `SeekRowid` or by an
 * index cursor; an index cursor (or a WITHOUT ROWID table) that seeks and stops at the same first
 * key, in the same direction. `IN (...)` lists arrive through an ephemeral table filled with
 * parameters and constants, and a rowid read off a cursor found by its rowid is that rowid.
 * Anything else, or any opcode livecmd does not know, reads the table whole.
 */
export function planReads(program: readonly ProgramStep[], schema: SqliteSchema): PlannedRead[] {
  const analysis = new ProgramAnalysis(program, schema);
  const byTable = new Map<string, Visited>();
  for (const [cursor, btree] of analysis.btrees) {
    const visited = analysis.known ? analysis.visited(cursor) : "whole";
    const earlier = byTable.get(btree.table);
    byTable.set(
      btree.table,
      earlier === "whole" || visited === "whole" ? "whole" : [...(earlier ?? []), ...visited],
    );
  }
  return [...byTable].flatMap(([table, visited]): PlannedRead[] =>
    visited === "whole"
      ? [{ table, reason: wholeReasonOf(program, analysis.cursorsOn(table)) }]
      : mergeByColumn(table, visited),
  );
}

/** One read per key column, each source once (an `IN` list reaches a cursor by several paths). */
function mergeByColumn(table: string, visited: Exclude<Visited, "whole">): PlannedRead[] {
  const byKey = new Map<string, { column: KeyColumn; sources: Map<string, KeySource> }>();
  for (const { column, sources } of visited) {
    const entry = byKey.get(column.key) ?? { column, sources: new Map() };
    for (const source of sources) entry.sources.set(sourceText(source), source);
    byKey.set(column.key, entry);
  }
  return [...byKey.values()].map(({ column, sources }) => ({
    table,
    column,
    sources: [...sources.values()],
  }));
}

class ProgramAnalysis {
  /** Every cursor opened on one of the app's b-trees, once. */
  readonly btrees = new Map<number, Btree>();
  /** False when the program holds an opcode livecmd does not know. */
  readonly known: boolean;
  readonly #writers = new Map<number, ProgramStep[]>();
  readonly #conversions = new Map<number, Affinity[]>();
  readonly #uses = new Map<number, ProgramStep[]>();
  readonly #reopened = new Set<number>();
  readonly #values = new Map<number, Values>();
  readonly #visited = new Map<number, Visited>();

  constructor(program: readonly ProgramStep[], schema: SqliteSchema) {
    let known = true;
    for (const step of program) {
      const written = registersWritten(step);
      if (written === undefined) known = false;
      for (const register of written ?? []) push(this.#writers, register, step);
      for (const [register, affinity] of conversions(step))
        push(this.#conversions, register, affinity);
      for (const cursor of cursorsOf(step)) push(this.#uses, cursor, step);
      if (step.opcode === "OpenRead" && step.p3 === 0) {
        const btree = schema.btrees.get(step.p2);
        if (btree && this.btrees.has(step.p1)) this.#reopened.add(step.p1);
        if (btree) this.btrees.set(step.p1, btree);
      }
    }
    this.known = known;
  }

  /** The cursors opened on `table`'s b-trees, each with its b-tree. */
  cursorsOn(table: string): [number, Btree][] {
    return [...this.btrees].filter(([, btree]) => btree.table === table);
  }

  /** The rows `cursor` visits; memoized, and "whole" while being worked out (a cycle is unknown). */
  visited(cursor: number): Visited {
    const memo = this.#visited.get(cursor);
    if (memo) return memo;
    this.#visited.set(cursor, "whole");
    const btree = this.btrees.get(cursor);
    const result =
      !btree || this.#reopened.has(cursor)
        ? "whole"
        : btree.kind === "rowid table"
          ? this.#rowidCursor(cursor, btree.rowid)
          : this.#indexCursor(cursor, btree.first);
    this.#visited.set(cursor, result);
    return result;
  }

  /** A table cursor that only ever lands on a rowid, or on the row an index cursor points at. */
  #rowidCursor(cursor: number, rowid: KeyColumn | undefined): Visited {
    const visited: { column: KeyColumn; sources: readonly KeySource[] }[] = [];
    for (const step of this.#usesOf(cursor)) {
      if (ON_ROW.has(step.opcode) || step.opcode === "OpenRead") continue;
      if (step.opcode === "DeferredSeek" && step.p3 === cursor) {
        const through = this.visited(step.p1);
        if (through === "whole") return "whole";
        visited.push(...through);
        continue;
      }
      if (step.opcode !== "SeekRowid" && step.opcode !== "NotExists") return "whole";
      const byIndex = this.#indexRowidSource(step.p3);
      if (byIndex !== undefined) {
        if (byIndex === "whole") return "whole";
        visited.push(...byIndex);
        continue;
      }
      const sources = this.values(step.p3);
      if (!rowid || sources === "unknown") return "whole";
      visited.push({ column: rowid, sources });
    }
    return visited.length > 0 ? visited : "whole";
  }

  /** When `register` only ever holds the rowid an index cursor points at: the rows it visits. */
  #indexRowidSource(register: number): Visited | undefined {
    const writers = this.#writers.get(register) ?? [];
    const cursor = writers[0]?.p1;
    if (writers.length === 0 || !writers.every((step) => step.opcode === "IdxRowid"))
      return undefined;
    return writers.every((step) => step.p1 === cursor) ? this.visited(cursor!) : "whole";
  }

  /** An index cursor whose every seek and every stop compares the same first key, both ways covered. */
  #indexCursor(cursor: number, first: KeyColumn | undefined): Visited {
    const keys: ProgramStep[] = [];
    for (const step of this.#usesOf(cursor)) {
      const { opcode } = step;
      if (ON_ROW.has(opcode) || opcode === "OpenRead" || opcode === "Next" || opcode === "Prev")
        continue;
      if (opcode === "DeferredSeek" && step.p1 === cursor) continue;
      if (!SEEKS_UP.has(opcode) && !SEEKS_DOWN.has(opcode) && !isBound(opcode)) return "whole";
      keys.push(step);
    }
    const seeks = keys.filter(({ opcode }) => !isBound(opcode));
    const covered = (seekSet: Set<string>, boundSet: Set<string>) =>
      !seeks.some(({ opcode }) => seekSet.has(opcode)) ||
      keys.some(({ opcode }) => boundSet.has(opcode));
    if (
      !first ||
      seeks.length === 0 ||
      !covered(SEEKS_UP, BOUNDS_UP) ||
      !covered(SEEKS_DOWN, BOUNDS_DOWN)
    )
      return "whole";
    const sources = this.#sameKey(keys.map((step) => step.p3));
    return sources === "unknown" ? "whole" : [{ column: first, sources }];
  }

  /**
   * The values of registers that all hold the same value: one register written once (a register
   * rewritten between a seek and its bound, as `BETWEEN ? AND ?` does, holds two values), or one
   * parameter or constant each.
   */
  #sameKey(registers: readonly number[]): Values {
    const [register] = registers;
    const values = this.values(register!);
    if (values === "unknown") return values;
    const writtenOnce = (this.#writers.get(register!) ?? []).length === 1;
    if (writtenOnce && registers.every((other) => other === register)) return values;
    const single = (candidate: Values) =>
      candidate !== "unknown" && candidate.length === 1 ? sourceText(candidate[0]!) : undefined;
    const expected = single(values);
    return expected !== undefined &&
      registers.every((other) => single(this.values(other)) === expected)
      ? values
      : "unknown";
  }

  /** What `register` may hold: the union over its writers, converted by its converters. */
  values(register: number): Values {
    const memo = this.#values.get(register);
    if (memo) return memo;
    this.#values.set(register, "unknown");
    const writers = this.#writers.get(register) ?? [];
    let result: Values = writers.length === 0 ? "unknown" : [];
    for (const step of writers) {
      const written = this.#written(step, register);
      result = result === "unknown" || written === "unknown" ? "unknown" : [...result, ...written];
    }
    const converted = this.#conversions.get(register) ?? [];
    if (result !== "unknown" && converted.length > 0)
      result = result.map((source) => ({ ...source, via: [...source.via, ...converted] }));
    this.#values.set(register, result);
    return result;
  }

  #written(step: ProgramStep, register: number): Values {
    switch (step.opcode) {
      case "Variable":
        return [{ param: step.p1, via: [] }];
      case "Integer":
        return [{ constant: BigInt(step.p1), via: [] }];
      case "Int64":
        return [{ constant: BigInt(String(step.p4)), via: [] }];
      case "String8":
      case "String":
        return typeof step.p4 === "string" ? [{ constant: step.p4, via: [] }] : "unknown";
      case "Rowid":
        return this.#rowidOf(step.p1);
      case "Column":
        return step.p2 === 0 && register === step.p3 ? this.#listValues(step.p1) : "unknown";
      default:
        return "unknown";
    }
  }

  /** The rowid of a row `cursor` found by rowid alone is the rowid it looked for. */
  #rowidOf(cursor: number): Values {
    const btree = this.btrees.get(cursor);
    const visited = this.visited(cursor);
    if (btree?.kind !== "rowid table" || visited === "whole") return "unknown";
    if (!visited.every(({ column }) => column.key === "rowid")) return "unknown";
    return visited.flatMap(({ sources }) =>
      sources.map((source) => ({ ...source, via: [...source.via, "integer" as const] })),
    );
  }

  /**
   * The values of an `IN (...)` list: an ephemeral cursor filled only with one-field records of
   * parameters and constants, read back by its first column.
   */
  #listValues(cursor: number): Values {
    if (this.btrees.has(cursor)) return "unknown";
    let values: KeySource[] = [];
    for (const step of this.#usesOf(cursor)) {
      if (["OpenEphemeral", "Rewind", "Next", "Column", "NullRow", "Close"].includes(step.opcode))
        continue;
      if (step.opcode !== "IdxInsert") return "unknown";
      for (const record of this.#writers.get(step.p2) ?? []) {
        if (record.opcode !== "MakeRecord" || record.p2 !== 1) return "unknown";
        const fields = this.values(record.p1);
        if (fields === "unknown") return "unknown";
        const affinity = affinityLetters(record.p4);
        values = [
          ...values,
          ...fields.map((field) => ({ ...field, via: [...field.via, ...affinity] })),
        ];
      }
    }
    return values;
  }

  #usesOf(cursor: number): readonly ProgramStep[] {
    return this.#uses.get(cursor) ?? [];
  }
}

function isBound(opcode: string): boolean {
  return BOUNDS_UP.has(opcode) || BOUNDS_DOWN.has(opcode);
}

function cursorsOf(step: ProgramStep): number[] {
  if (step.opcode === "DeferredSeek") return [step.p1, step.p3];
  if (step.opcode === "OpenDup") return [step.p1, step.p2];
  return CURSOR_P1.has(step.opcode) ? [step.p1] : [];
}

function sourceText(source: KeySource): string {
  return "param" in source
    ? `?${source.param}:${source.via.join(",")}`
    : `=${typeof source.constant}:${String(source.constant)}:${source.via.join(",")}`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
