import { affinityLetters, conversions, registersWritten } from "./opcodes.ts";
import {
  loopFilter,
  type PlannedDecision,
  type PlannedPage,
  type ProgramFacts,
} from "./planFilters.ts";
import type { ProgramStep } from "./sqliteProgram.ts";
import type { Affinity, Btree, KeyColumn, SqliteSchema, TableColumn } from "../sqliteSchema.ts";
import { unfollowed, type WholeReason } from "../../wholeReason.ts";
import { EXPRESSION_INDEX, scanReason, unknownOpcode } from "./wholeReasons.ts";

/**
 * Where a value comes from when the statement runs: a positional parameter (1-based), a constant
 * of the program, or a field of rows the statement reads of another table (a lookup), converted
 * on its way by the affinities in `via`.
 */
export type KeySource =
  | { readonly param: number; readonly via: readonly Affinity[] }
  | { readonly constant: string | bigint | null; readonly via: readonly Affinity[] }
  | { readonly lookup: Lookup; readonly via: readonly Affinity[] };

/**
 * Values a statement reads off rows of a table and looks other rows up by: `field` of the rows
 * of `table` that `rows` says the statement reads (`appointments.patient_id` of a doctor's
 * appointments). `id` tells two lookups of one statement apart.
 */
export interface Lookup {
  readonly id: string;
  readonly table: string;
  readonly field: TableColumn | "rowid";
  readonly rows: PlannedRows;
}

/** Which rows of a table a statement reads, as planned: whole (and why), or by keys and filters. */
export type PlannedRows =
  | { readonly whole: WholeReason }
  | { readonly keys: readonly PlannedKey[]; readonly filters: readonly PlannedDecision[] };

/** Rows whose `column` equals one of `sources`. */
export interface PlannedKey {
  readonly column: KeyColumn;
  readonly sources: readonly KeySource[];
}

/** How a statement reads a table, as planned: whole (and why), through `column` = one of `sources`, or through a filter. */
export type PlannedRead =
  | {
      readonly table: string;
      readonly column?: undefined;
      readonly filter?: undefined;
      readonly reason?: WholeReason;
      readonly page?: undefined;
    }
  | {
      readonly table: string;
      readonly column: KeyColumn;
      readonly sources: readonly KeySource[];
      readonly filter?: undefined;
      readonly page?: undefined;
    }
  | {
      readonly table: string;
      readonly column?: undefined;
      readonly filter: PlannedDecision;
      /** The page the filtered loop returns: narrowed once the statement ran, by its last row. */
      readonly page?: PagedRead;
    };

/** A page, and why its table is read whole until narrowed, when its loop tests nothing else. */
export interface PagedRead extends PlannedPage {
  readonly whole?: WholeReason;
}

/** A register's possible values: known sources, or unknown (computed, read off a row livecmd cannot follow...). */
type Values = readonly KeySource[] | "unknown";

const SEEKS_UP = new Set(["SeekGE", "SeekGT"]);
const SEEKS_DOWN = new Set(["SeekLE", "SeekLT"]);
const BOUNDS_UP = new Set(["IdxGT", "IdxGE"]);
const BOUNDS_DOWN = new Set(["IdxLT", "IdxLE"]);
/** Steps that move a cursor through its rows in a loop. */
const LOOPING = new Set(["Rewind", "Last", "Next", "Prev", ...SEEKS_UP, ...SEEKS_DOWN]);
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
const UNFOLLOWED = unfollowed("it is read in a way livecmd does not follow");

/**
 * Which rows of which tables a statement reads, from SQLite's program for it. A cursor on a
 * table (or one of its indexes) reads it by key when it only ever lands on rows whose key column
 * equals values the statement knows: parameters, constants, or fields of rows it read of other
 * tables (a foreign key followed in a nested loop, `IN (SELECT ...)`): a rowid cursor moved only by
 * `SeekRowid` or by an index cursor; an index cursor (or a WITHOUT ROWID table) that seeks and
 * stops at the same first key, in the same direction. `IN (...)` lists arrive through an
 * ephemeral table, and a rowid read off a cursor found by its rowid is that rowid. A cursor that
 * loops over rows reads them through a filter when its loop tests each row before using it
 * (`planFilters.ts`), and an index range is such a test. A table is read whole where any cursor
 * on it reads it otherwise, and every table is when the program holds an opcode livecmd does not
 * know; each whole read says why (`WholeReason`).
 */
export function planReads(program: readonly ProgramStep[], schema: SqliteSchema): PlannedRead[] {
  const analysis = new ProgramAnalysis(program, schema);
  const byTable = new Map<string, PlannedRows>();
  for (const [cursor, btree] of analysis.btrees) {
    const rows = analysis.unknownOpcode
      ? { whole: unknownOpcode(analysis.unknownOpcode) }
      : analysis.rows(cursor);
    byTable.set(btree.table, union(byTable.get(btree.table), rows));
  }
  return [...byTable].flatMap(([table, rows]): PlannedRead[] =>
    "whole" in rows
      ? [{ table, reason: rows.whole }]
      : [
          ...mergeByColumn(table, rows.keys),
          ...rows.filters.map((filter) => {
            const page = analysis.pages.get(filter);
            return { table, filter, ...(page && { page }) };
          }),
        ],
  );
}

/** The rows two cursors read together. */
function union(a: PlannedRows | undefined, b: PlannedRows): PlannedRows {
  if (!a || a === b) return b;
  if ("whole" in a) return a;
  if ("whole" in b) return b;
  const filters = [...a.filters, ...b.filters.filter((filter) => !a.filters.includes(filter))];
  return { keys: [...a.keys, ...b.keys], filters };
}

/** One read per key column, each source once (an `IN` list reaches a cursor by several paths). */
function mergeByColumn(table: string, keys: readonly PlannedKey[]): PlannedRead[] {
  const byKey = new Map<string, { column: KeyColumn; sources: Map<string, KeySource> }>();
  for (const { column, sources } of keys) {
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

class ProgramAnalysis implements ProgramFacts {
  /** Every cursor opened on one of the app's b-trees, once. */
  readonly btrees = new Map<number, Btree>();
  /** The pages loops return, by their filter. */
  readonly pages = new Map<PlannedDecision, PagedRead>();
  /** The first opcode of the program livecmd does not know, if any. */
  readonly unknownOpcode: string | undefined;
  readonly #writers = new Map<number, ProgramStep[]>();
  readonly #conversions = new Map<number, { addr: number; affinity: Affinity }[]>();
  readonly #uses = new Map<number, ProgramStep[]>();
  readonly #reopened = new Set<number>();
  readonly #values = new Map<number, Values>();
  readonly #rows = new Map<number, PlannedRows>();

  constructor(
    readonly program: readonly ProgramStep[],
    schema: SqliteSchema,
  ) {
    let unknown: string | undefined;
    for (const step of program) {
      const written = registersWritten(step);
      if (written === undefined) unknown ??= step.opcode;
      for (const register of written ?? []) push(this.#writers, register, step);
      for (const [register, affinity] of conversions(step))
        push(this.#conversions, register, { addr: step.addr, affinity });
      for (const cursor of cursorsOf(step)) push(this.#uses, cursor, step);
      if (step.opcode === "OpenRead" && step.p3 === 0) {
        const btree = schema.btrees.get(step.p2);
        if (btree && this.btrees.has(step.p1)) this.#reopened.add(step.p1);
        if (btree) this.btrees.set(step.p1, btree);
      }
    }
    this.unknownOpcode = unknown;
  }

  /** The rows `cursor` visits; memoized, and whole while being worked out (a cycle is unknown). */
  rows(cursor: number): PlannedRows {
    const memo = this.#rows.get(cursor);
    if (memo) return memo;
    this.#rows.set(cursor, { whole: unfollowed("its keys come from its own rows") });
    const btree = this.btrees.get(cursor);
    const result: PlannedRows =
      !btree || this.#reopened.has(cursor)
        ? { whole: UNFOLLOWED }
        : btree.kind === "rowid table"
          ? this.#rowidCursor(cursor, btree.rowid)
          : this.#indexCursor(cursor, btree.first);
    this.#rows.set(cursor, result);
    return result;
  }

  /** A table cursor that lands on rowids, or on the row an index cursor points at, or loops through a filter. */
  #rowidCursor(cursor: number, rowid: KeyColumn | undefined): PlannedRows {
    let rows: PlannedRows = { keys: [], filters: [] };
    let loops = false;
    for (const step of this.usesOf(cursor)) {
      if (ON_ROW.has(step.opcode) || step.opcode === "OpenRead") continue;
      if (LOOPING.has(step.opcode)) loops = true;
      else if (step.opcode === "DeferredSeek" && step.p3 === cursor)
        rows = union(rows, this.rows(step.p1));
      else if (step.opcode === "SeekRowid" || step.opcode === "NotExists")
        rows = union(rows, this.#byRowid(step.p3, rowid));
      else return { whole: step.opcode === "Count" ? this.#scanned(cursor) : UNFOLLOWED };
    }
    if (loops) rows = union(rows, this.#filtered(cursor));
    return "keys" in rows && rows.keys.length + rows.filters.length === 0
      ? { whole: UNFOLLOWED }
      : rows;
  }

  /** The rows a `SeekRowid` by `register` lands on: where an index cursor points, or the rowids it holds. */
  #byRowid(register: number, rowid: KeyColumn | undefined): PlannedRows {
    const writers = this.#writers.get(register) ?? [];
    const cursor = writers[0]?.p1;
    if (writers.length > 0 && writers.every((step) => step.opcode === "IdxRowid"))
      return writers.every((step) => step.p1 === cursor)
        ? this.rows(cursor!)
        : { whole: UNFOLLOWED };
    const sources = this.values(register);
    if (!rowid || sources === "unknown")
      return { whole: unfollowed("it is looked up by rowids livecmd cannot tell") };
    return { keys: [{ column: rowid, sources }], filters: [] };
  }

  /** The filter of the loop over `cursor`: whole when there is none, or it tests nothing livecmd can read. */
  #filtered(cursor: number): PlannedRows {
    const loop = loopFilter(this, cursor);
    if ("whole" in loop) return loop;
    const tests = testsSomething(loop.decision);
    const { page } = loop;
    if (page && "problem" in page)
      return tests
        ? { keys: [], filters: [loop.decision] }
        : { whole: { kind: "page", why: page.problem } };
    if (!tests && !page) return { whole: this.#scanned(cursor) };
    if (page)
      this.pages.set(loop.decision, { ...page, ...(!tests && { whole: this.#scanned(cursor) }) });
    return { keys: [], filters: [loop.decision] };
  }

  /** A scan of every row of `cursor`'s table, and what it tests them by that livecmd cannot. */
  #scanned(cursor: number): WholeReason {
    return scanReason(this.program, cursor, this.btrees.get(cursor)!);
  }

  /**
   * An index cursor whose every seek and every stop compares the same first key, both ways
   * covered, reads by that key; one that loops otherwise reads through a filter.
   */
  #indexCursor(cursor: number, first: KeyColumn | undefined): PlannedRows {
    const keys: ProgramStep[] = [];
    let rewound = false;
    for (const step of this.usesOf(cursor)) {
      const { opcode } = step;
      if (ON_ROW.has(opcode) || opcode === "OpenRead" || opcode === "Next" || opcode === "Prev")
        continue;
      if (opcode === "DeferredSeek" && step.p1 === cursor) continue;
      if (opcode === "Rewind" || opcode === "Last") rewound = true;
      else if (SEEKS_UP.has(opcode) || SEEKS_DOWN.has(opcode) || isBound(opcode)) keys.push(step);
      else return { whole: opcode === "Count" ? this.#scanned(cursor) : UNFOLLOWED };
    }
    if (rewound) return this.#filtered(cursor);
    const seeks = keys.filter(({ opcode }) => !isBound(opcode));
    const covered = (seekSet: Set<string>, boundSet: Set<string>) =>
      !seeks.some(({ opcode }) => seekSet.has(opcode)) ||
      keys.some(({ opcode }) => boundSet.has(opcode));
    if (!first || seeks.length === 0) return { whole: EXPRESSION_INDEX };
    const sources =
      covered(SEEKS_UP, BOUNDS_UP) && covered(SEEKS_DOWN, BOUNDS_DOWN)
        ? this.#sameKey(keys.map((step) => step.p3))
        : "unknown";
    return sources === "unknown"
      ? this.#filtered(cursor)
      : { keys: [{ column: first, sources }], filters: [] };
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
    const converted = (this.#conversions.get(register) ?? []).map(({ affinity }) => affinity);
    if (result !== "unknown" && converted.length > 0)
      result = result.map((source) => ({ ...source, via: [...source.via, ...converted] }));
    this.#values.set(register, result);
    return result;
  }

  valuesBefore(register: number, addr: number): Values {
    const writer = this.writersOf(register).findLast((step) => step.addr < addr);
    // Written only after, in the program's order: by its prologue (constants and parameters), run first.
    if (!writer) return this.values(register);
    const written = this.#written(writer, register);
    if (written === "unknown") return written;
    const via = (this.#conversions.get(register) ?? [])
      .filter((conversion) => conversion.addr > writer.addr && conversion.addr < addr)
      .map(({ affinity }) => affinity);
    return written.map((source) => ({ ...source, via: [...source.via, ...via] }));
  }

  writersOf(register: number): readonly ProgramStep[] {
    return this.#writers.get(register) ?? [];
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
      case "Null":
        return [{ constant: null, via: [] }];
      case "Rowid":
      case "IdxRowid":
        return this.fieldValues(step.p1, "rowid");
      case "Column":
        return register === step.p3 ? this.fieldValues(step.p1, step.p2) : "unknown";
      default:
        return "unknown";
    }
  }

  /**
   * The values field `column` of the rows `cursor` visits holds: the values an `IN (...)` list
   * was filled with; the rowids a cursor found by rowid alone looked for; else a lookup of the
   * field in the rows the cursor reads.
   */
  fieldValues(cursor: number, column: number | "rowid"): Values {
    const btree = this.btrees.get(cursor);
    if (!btree) return column === 0 ? this.listValues(cursor) : "unknown";
    const field = column === "rowid" ? "rowid" : btree.fields[column];
    if (!field || (field === "rowid" && btree.kind === "index" && !btree.fields.includes("rowid")))
      return "unknown";
    const rows = this.rows(cursor);
    const rowids = field === "rowid" && "keys" in rows && rows.filters.length === 0 && rows.keys;
    if (rowids && rowids.length > 0 && rowids.every(({ column }) => column.key === "rowid"))
      return rowids.flatMap(({ sources }) =>
        sources.map((source) => ({ ...source, via: [...source.via, "integer" as const] })),
      );
    const lookup: Lookup = { id: `${cursor}:${column}`, table: btree.table, field, rows };
    return [{ lookup, via: [] }];
  }

  /**
   * The values of an `IN (...)` list: an ephemeral cursor filled only with one-field records of
   * values livecmd knows, read back by its first column.
   */
  listValues(cursor: number): Values {
    if (this.btrees.has(cursor)) return "unknown";
    let values: KeySource[] = [];
    for (const step of this.usesOf(cursor)) {
      if (["OpenEphemeral", "Rewind", "Next", "Column", "NullRow", "Close"].includes(step.opcode))
        continue;
      if (["Found", "NotFound", "Filter"].includes(step.opcode)) continue;
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

  usesOf(cursor: number): readonly ProgramStep[] {
    return this.#uses.get(cursor) ?? [];
  }
}

/** Whether a decision holds a test livecmd can evaluate (else the scan is as good as whole). */
function testsSomething(decision: PlannedDecision): boolean {
  if (typeof decision === "boolean") return false;
  return (
    decision.atom.kind !== "unknown" ||
    testsSomething(decision.ifTrue) ||
    testsSomething(decision.ifFalse)
  );
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
  if ("param" in source) return `?${source.param}:${source.via.join(",")}`;
  if ("lookup" in source) return `@${source.lookup.id}:${source.via.join(",")}`;
  return `=${typeof source.constant}:${String(source.constant)}:${source.via.join(",")}`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
