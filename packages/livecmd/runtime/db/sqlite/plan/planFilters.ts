import { comparisonOf, collationNamed, type Comparison } from "./sqliteCompare.ts";
import type { KeySource } from "./planReads.ts";
import type { ProgramStep } from "./sqliteProgram.ts";
import type { Affinity, Btree, Collation, Field } from "../sqliteSchema.ts";
import { affinityLetters, conversions, registersWritten } from "./opcodes.ts";
import { unfollowed, type WholeReason } from "../../wholeReason.ts";
import { EXPRESSION_INDEX } from "./wholeReasons.ts";

/**
 * A row test of a loop, as planned (its values still sources: parameters, constants, values of
 * other rows): what makes the step jump. `field` is the column of the looped table the test
 * reads (`"rowid"` for the rowid), converted in place on its way (`via`). An `unknown` test is
 * one livecmd cannot evaluate: it may go either way.
 */
export type PlannedAtom =
  | {
      readonly kind: "compare";
      readonly comparison: Comparison;
      readonly field: PlannedField;
      readonly operand: readonly KeySource[];
      /** Whether the field is the comparison's left operand (P3), the one compared with P1. */
      readonly fieldLeft: boolean;
    }
  | { readonly kind: "null"; readonly field: PlannedField; readonly jumpsIfNull: boolean }
  | {
      readonly kind: "like";
      readonly field: PlannedField;
      readonly pattern: readonly KeySource[];
      readonly escape: readonly KeySource[] | undefined;
      /** `If` jumps when LIKE is true, `IfNot` when it is false; `nullJumps`: whether NULL jumps. */
      readonly jumpsIfTrue: boolean;
      readonly nullJumps: boolean;
    }
  | {
      readonly kind: "in";
      readonly field: PlannedField;
      readonly list: readonly KeySource[];
      readonly collation: Collation;
      readonly jumpsIfFound: boolean;
    }
  | {
      readonly kind: "range";
      readonly field: PlannedField;
      readonly collation: Collation;
      readonly lower?: PlannedBound;
      readonly upper?: PlannedBound;
    }
  | { readonly kind: "unknown"; readonly text: string };

/** A column of the looped table, converted in place by `via` before the test. */
export interface PlannedField {
  readonly table: string;
  readonly field: Exclude<Field, undefined>;
  /** The column's own affinity (the rowid's: integer). */
  readonly affinity: Affinity;
  readonly via: readonly Affinity[];
}

export interface PlannedBound {
  readonly sources: readonly KeySource[];
  readonly inclusive: boolean;
}

/** A planned decision: like `rowFilter.ts`'s `Decision`, with planned atoms. */
export type PlannedDecision =
  | boolean
  | {
      readonly atom: PlannedAtom;
      readonly ifTrue: PlannedDecision;
      readonly ifFalse: PlannedDecision;
    };

/** What the loop analysis needs of the whole program's analysis. */
export interface ProgramFacts {
  readonly program: readonly ProgramStep[];
  readonly btrees: ReadonlyMap<number, Btree>;
  usesOf(cursor: number): readonly ProgramStep[];
  /** What a register may hold over the whole program (for registers the loop does not write). */
  values(register: number): readonly KeySource[] | "unknown";
  /** What a register holds just before `addr`, when the code up to it runs straight from its last write. */
  valuesBefore(register: number, addr: number): readonly KeySource[] | "unknown";
  /** Every step that writes `register`. */
  writersOf(register: number): readonly ProgramStep[];
  /** The values field `column` of the rows `cursor` visits holds (another table's rows). */
  fieldValues(cursor: number, column: number | "rowid"): readonly KeySource[] | "unknown";
  /** The values of an `IN (...)` list held in an ephemeral cursor. */
  listValues(cursor: number): readonly KeySource[] | "unknown";
}

/**
 * A loop that returns rows in the order of its key and stops at its last one: each returned row
 * is the statement's (one `ResultRow`, in the loop's body), and the loop visits no row after the
 * one that made the last (a LIMIT's `DecrJumpZero` leaves the loop; a statement stepped to its
 * first row alone stops there). So when the page is full, no row whose key lies beyond the last
 * returned row's key was visited: a change to such a row cannot change the result.
 */
export interface PlannedPage {
  /** The field the loop visits rows in the order of: an index's first column, or the rowid. */
  readonly key: PlannedField;
  readonly collation: Collation;
  /** Visited from the largest key down (`Last`/`Prev`): NULLs, the smallest, come last. */
  readonly descending: boolean;
  /** Which column of each returned row holds the key, of how many columns. */
  readonly column: number;
  readonly columns: number;
  /** The LIMIT's value; absent without one. */
  readonly limit?: KeySource;
}

/** Why a loop that returns the statement's rows in order is not a page livecmd can bound. */
export interface PageProblem {
  readonly problem: string;
}

/** A loop's filter (and the page it returns, if it does), or why there is none. */
export type LoopFilter =
  | { readonly decision: PlannedDecision; readonly page?: PlannedPage | PageProblem }
  | { readonly whole: WholeReason };

const SEEKS = new Set(["SeekGE", "SeekGT", "SeekLE", "SeekLT"]);
const STARTS = new Set(["Rewind", "Last", ...SEEKS]);
const BOUNDS = new Set(["IdxGT", "IdxGE", "IdxLT", "IdxLE"]);
const COMPARISONS = new Set(["Eq", "Ne", "Lt", "Le", "Gt", "Ge"]);
/** Steps a row test may hold that jump nowhere and change nothing but registers. */
const VALUE_STEPS = new Set([
  ...["Column", "Rowid", "IdxRowid", "Affinity", "RealAffinity", "Copy", "SCopy", "Function"],
  "PureFunc",
  ...["Integer", "Int64", "String8", "String", "Null", "Variable", "Real", "Blob", "Noop"],
  ...["BitAnd", "BitOr", "Add", "Subtract", "Multiply", "Divide", "Remainder", "Concat"],
  ...["Cast", "Not", "BitNot", "IsTrue", "CollSeq", "DeferredSeek", "ZeroOrNull"],
]);
/** Steps a row test may hold that jump to P2 on some condition. */
const TEST_STEPS = new Set([
  ...COMPARISONS,
  ...["IsNull", "NotNull", "If", "IfNot", "Found", "NotFound", "Filter", "ElseEq", "IsType"],
]);
/** Opcodes whose P2 is an address they may jump to. */
const JUMPS_TO_P2 = new Set([
  ...TEST_STEPS,
  ...["SeekRowid", "NotExists"],
  ...STARTS,
  ...BOUNDS,
  ...["Goto", "Gosub", "Next", "Prev", "SorterNext", "SorterSort", "Sort", "Once", "IfPos"],
  ...["IfNotZero", "DecrJumpZero", "InitCoroutine", "Yield", "MustBeInt", "NoConflict"],
  ...["IfNoHope", "VFilter", "VNext", "RowSetRead", "RowSetTest", "Init", "IfNotOpen", "Jump"],
]);

/** What a register holds at a point of the row test. */
type Def =
  | { readonly kind: "field"; readonly field: PlannedField }
  | { readonly kind: "outer"; readonly sources: readonly KeySource[] }
  | { readonly kind: "call"; readonly name: string; readonly args: readonly (Def | undefined)[] }
  | { readonly kind: "unknown" };

const UNKNOWN: Def = { kind: "unknown" };

/**
 * The test a loop over `cursor` applies to each row before using it, read off the program: the
 * steps from the loop's top up to the first that does anything but compute values and jump
 * forward (to the next row, out of the loop, or on into the test) decide, for each row, whether
 * the loop's body sees it. The body is everything after them up to the loop's `Next`. Such a test
 * is a filter of the table when nothing else reaches the body and nothing outside the loop reads
 * the row. Index loops add the range their seek and bounds keep.
 */
export function loopFilter(facts: ProgramFacts, cursor: number): LoopFilter {
  const uses = facts.usesOf(cursor);
  const nexts = uses.filter(({ opcode }) => opcode === "Next" || opcode === "Prev");
  const starts = uses.filter(({ opcode }) => STARTS.has(opcode));
  if (nexts.length !== 1 || starts.length !== 1)
    return { whole: unfollowed("it is read by more than one loop") };
  const next = nexts[0]!;
  const start = starts[0]!;
  const top = next.p2;
  const end = next.addr + 1;
  if (start.p2 !== end || top <= start.addr || !setUpOnly(facts.program, start.addr + 1, top, end))
    return { whole: unfollowed("its loop is not one livecmd follows") };
  const btree = facts.btrees.get(cursor)!;
  const loop = new Loop(facts, cursor, btree, top, next.addr);
  return loop.filter(start);
}

class Loop {
  /** Cursors on the looped row: the loop's, and a table's positioned from an index's. */
  readonly rowCursors = new Map<number, Btree>();
  /** Where the row test begins, after the bound checks at the top. */
  #from: number;
  /** The first step of the body. */
  #pass = 0;
  readonly #fail: ReadonlySet<number>;

  constructor(
    private readonly facts: ProgramFacts,
    private readonly cursor: number,
    private readonly btree: Btree,
    private readonly top: number,
    private readonly nextAddr: number,
  ) {
    this.rowCursors.set(cursor, btree);
    this.#from = top;
    this.#fail = new Set([nextAddr, nextAddr + 1]);
  }

  filter(start: ProgramStep): LoopFilter {
    const program = this.facts.program;
    const bounds: ProgramStep[] = [];
    while (BOUNDS.has(program[this.#from]?.opcode ?? "") && program[this.#from]!.p1 === this.cursor)
      bounds.push(program[this.#from++]!);
    const range = this.#range(start, bounds);
    if ("whole" in range) return range;
    this.#pass = this.#testEnd();
    const problem = this.#escapes();
    if (problem) return { whole: unfollowed(problem) };
    const defs = this.#reachingDefs();
    const memo = new Map<number, PlannedDecision>();
    const decision = this.#decision(this.#from, defs, memo);
    const page = this.#page(start);
    return {
      decision: range.atom ? { atom: range.atom, ifTrue: decision, ifFalse: false } : decision,
      ...(page && { page }),
    };
  }

  /**
   * The page the loop returns, when it is one (`PlannedPage`): the statement's one `ResultRow`
   * in the body, which runs straight on (no loop of its own, no jump out but a LIMIT's to the
   * loop's end, which halts), and a column of it that holds the loop's key as read off the row.
   */
  #page(start: ProgramStep): PlannedPage | PageProblem | undefined {
    const program = this.facts.program;
    const results = program.filter(({ opcode }) => opcode === "ResultRow");
    const result = results.length === 1 ? results[0]! : undefined;
    const end = this.nextAddr + 1;
    if (!result || result.addr < this.#pass || result.addr > this.nextAddr) return undefined;
    if (program[end]?.opcode !== "Halt") return undefined;
    let limit: ProgramStep | undefined;
    for (let at = this.#pass; at < this.nextAddr; at += 1) {
      const step = program[at]!;
      if (step.opcode === "DeferredSeek" && step.p1 === this.cursor)
        this.rowCursors.set(step.p3, this.facts.btrees.get(step.p3)!);
      if (step.opcode === "DecrJumpZero" && step.p2 === end && at > result.addr && !limit) {
        limit = step;
        continue;
      }
      if (targets(step).some((to) => to <= at || to > this.nextAddr)) return undefined;
    }
    const ordered = this.#orderKey();
    // Without a LIMIT, only `get`'s first row ends the loop early: not a page to say why of.
    if (!ordered) return limit && { problem: "sorted by an expression" };
    const column = Array.from({ length: result.p2 }, (_, i) => result.p1 + i).findIndex(
      (register) => this.#holdsKey(register, result.addr, ordered.key),
    );
    const limitValue = limit && this.#limitValue(limit.p1);
    if (column < 0)
      return (
        limit && {
          problem: `whose rows do not return the key it is sorted by (${fieldName(ordered.key)})`,
        }
      );
    if (limit && !limitValue) return { problem: "whose LIMIT is computed" };
    return {
      ...ordered,
      descending: start.opcode === "Last" || start.opcode === "SeekLE" || start.opcode === "SeekLT",
      column,
      columns: result.p2,
      ...(limitValue && { limit: limitValue }),
    };
  }

  /** The field the loop's b-tree is ordered by, and its collation: an index's first column, a table's rowid. */
  #orderKey(): { key: PlannedField; collation: Collation } | undefined {
    const { btree } = this;
    if (btree.kind !== "index")
      return {
        key: { table: btree.table, field: "rowid", affinity: "integer", via: [] },
        collation: "BINARY",
      };
    const key = this.#field(btree, 0);
    return key && btree.first ? { key, collation: btree.first.collation } : undefined;
  }

  /** Whether `register` holds the key of the loop's row at `addr`: written once in the loop, by a read of the key, converted by `RealAffinity` at most. */
  #holdsKey(register: number, addr: number, key: PlannedField): boolean {
    const inLoop = this.facts
      .writersOf(register)
      .filter((step) => step.addr >= this.top && step.addr <= this.nextAddr);
    const [writer] = inLoop;
    if (inLoop.length !== 1 || writer!.addr > addr) return false;
    const converters = this.facts.program
      .slice(writer!.addr + 1, addr)
      .filter((step) => conversions(step).some(([converted]) => converted === register));
    if (converters.some(({ opcode }) => opcode !== "RealAffinity")) return false;
    // Another cursor's row is not the key (and asking what it holds would plan that cursor now).
    if (!this.rowCursors.has(writer!.p1)) return false;
    const def =
      writer!.opcode === "Column" && writer!.p3 === register
        ? this.#column(writer!.p1, writer!.p2)
        : writer!.opcode === "Rowid" || writer!.opcode === "IdxRowid"
          ? this.#column(writer!.p1, "rowid")
          : UNKNOWN;
    return def.kind === "field" && sameField(def.field, key);
  }

  /** A LIMIT's value: one constant or parameter, written before the loop (SQLite makes it an integer). */
  #limitValue(register: number): KeySource | undefined {
    const writers = this.facts
      .writersOf(register)
      .filter(({ opcode }) => opcode !== "DecrJumpZero");
    const [writer] = writers;
    if (writers.length !== 1 || (writer!.addr >= this.top && writer!.addr <= this.nextAddr))
      return undefined;
    if (writer!.opcode === "Integer") return { constant: BigInt(writer!.p1), via: [] };
    if (writer!.opcode === "Variable") return { param: writer!.p1, via: ["integer"] };
    return undefined;
  }

  /** The range a seek and bound checks keep (on an index, or a rowid table's rowid); none for a rewound loop. */
  #range(
    start: ProgramStep,
    bounds: readonly ProgramStep[],
  ): { atom?: PlannedAtom } | { whole: WholeReason } {
    const seek = SEEKS.has(start.opcode) ? start : undefined;
    if (!seek && bounds.length === 0) return {};
    const descending =
      start.opcode === "SeekLE" || start.opcode === "SeekLT" || start.opcode === "Last";
    const seekInclusive = seek?.opcode === "SeekGE" || seek?.opcode === "SeekLE";
    if (this.btree.kind !== "index") {
      // A rowid table seeks by a number: text becomes one if it reads as one, as the seek converts it.
      const field: PlannedField = {
        table: this.btree.table,
        field: "rowid",
        affinity: "integer",
        via: [],
      };
      const edge = this.#bound(seek!, seek!.addr, seekInclusive, ["numeric"]);
      return {
        atom: { kind: "range", field, collation: "BINARY", [descending ? "upper" : "lower"]: edge },
      };
    }
    const first = this.btree.first;
    const field = this.#field(this.btree, 0);
    if (!first || !field) return { whole: EXPRESSION_INDEX };
    if (bounds.length > 1) return { whole: { kind: "range", column: first.key } };
    const [limit] = bounds;
    const limitInclusive = limit?.opcode === "IdxGT" || limit?.opcode === "IdxLT";
    const seekEdge = seek && this.#bound(seek, seek.addr, seekInclusive, []);
    const limitEdge = limit && this.#bound(limit, this.top, limitInclusive, []);
    const [lower, upper] = descending ? [limitEdge, seekEdge] : [seekEdge, limitEdge];
    return {
      atom: {
        kind: "range",
        field,
        collation: first.collation,
        ...(lower && { lower }),
        ...(upper && { upper }),
      },
    };
  }

  /**
   * One end of the range: the key a seek or bound compares with, as it stands where it compares
   * (BETWEEN writes one register twice, once for each end). A key of several fields bounds the
   * first only inclusively.
   */
  #bound(
    step: ProgramStep,
    at: number,
    inclusive: boolean,
    via: readonly Affinity[],
  ): PlannedBound {
    const rewritten = this.facts
      .writersOf(step.p3)
      .some(({ addr }) => addr >= this.top && addr <= this.nextAddr);
    const sources = rewritten ? "unknown" : this.facts.valuesBefore(step.p3, at);
    return {
      sources:
        sources === "unknown"
          ? []
          : sources.map((source) => ({ ...source, via: [...source.via, ...via] })),
      inclusive: inclusive || Number(step.p4) > 1,
    };
  }

  /** The first step after the row test: one that is neither a value nor a forward test. */
  #testEnd(): number {
    const program = this.facts.program;
    let at = this.#from;
    for (; at < this.nextAddr; at += 1) {
      const step = program[at]!;
      if (step.opcode === "DeferredSeek" && step.p1 === this.cursor)
        this.rowCursors.set(step.p3, this.facts.btrees.get(step.p3)!);
      if (VALUE_STEPS.has(step.opcode)) continue;
      if ((TEST_STEPS.has(step.opcode) || step.opcode === "Goto") && step.p2 > at) continue;
      break;
    }
    return at;
  }

  /**
   * Why the test is not a filter: a jump from the test that goes elsewhere than on into it, the
   * body or the next row; a jump from outside into the loop; a read of the row outside the loop.
   * (What the test computes lives in registers SQLite writes again before it reads them.)
   */
  #escapes(): string | undefined {
    const program = this.facts.program;
    const inLoop = (addr: number) => addr >= this.top && addr <= this.nextAddr;
    for (let at = this.#from; at < this.#pass; at += 1) {
      const step = program[at]!;
      if (!JUMPS_TO_P2.has(step.opcode)) continue;
      if (step.p2 > this.#pass && !this.#fail.has(step.p2)) return "its row test jumps elsewhere";
    }
    for (const step of program)
      if (!inLoop(step.addr) && targets(step).some((to) => inLoop(to) && to !== this.top))
        return "its loop is entered from elsewhere";
    for (const row of this.rowCursors.keys())
      for (const use of this.facts.usesOf(row))
        if (!inLoop(use.addr) && READS_ROW.has(use.opcode))
          return "its rows are read outside its loop";
    return undefined;
  }

  /** Each register's definition where each step of the test starts (unknown where two paths disagree). */
  #reachingDefs(): Map<number, Map<number, Def>> {
    const program = this.facts.program;
    const incoming = new Map<number, Map<number, Def>[]>();
    const reach = (addr: number, state: Map<number, Def>) =>
      incoming.set(addr, [...(incoming.get(addr) ?? []), state]);
    reach(this.#from, new Map());
    const result = new Map<number, Map<number, Def>>();
    for (let at = this.#from; at < this.#pass; at += 1) {
      const arriving = incoming.get(at);
      if (!arriving) continue; // never reached
      const state = merged(arriving);
      result.set(at, state);
      const step = program[at]!;
      const after = this.#apply(step, state);
      if (step.opcode === "Goto") {
        reach(step.p2, after);
        continue;
      }
      if (TEST_STEPS.has(step.opcode)) reach(step.p2, after);
      reach(at + 1, after);
    }
    return result;
  }

  /** The registers' definitions after `step`. */
  #apply(step: ProgramStep, state: Map<number, Def>): Map<number, Def> {
    const after = new Map(state);
    const define = (register: number, def: Def) => after.set(register, def);
    switch (step.opcode) {
      case "Column":
        define(step.p3, this.#column(step.p1, step.p2));
        break;
      case "Rowid":
      case "IdxRowid":
        define(step.p2, this.#column(step.p1, "rowid"));
        break;
      case "Affinity":
        affinityLetters(step.p4).forEach((affinity, i) => {
          const def = after.get(step.p1 + i) ?? this.#outer(step.p1 + i);
          define(step.p1 + i, converted(def, affinity));
        });
        break;
      case "RealAffinity":
        define(step.p1, converted(after.get(step.p1) ?? this.#outer(step.p1), "real"));
        break;
      case "SCopy":
        define(step.p2, after.get(step.p1) ?? this.#outer(step.p1));
        break;
      case "Copy":
        for (let i = 0; i <= step.p3; i += 1)
          define(step.p2 + i, after.get(step.p1 + i) ?? this.#outer(step.p1 + i));
        break;
      case "Function":
      case "PureFunc": {
        const name = typeof step.p4 === "string" ? step.p4 : "";
        const count = Number(/\((\d+)\)$/.exec(name)?.[1] ?? -1);
        const args = Array.from(
          { length: Math.max(count, 0) },
          (_, i) => after.get(step.p2 + i) ?? this.#outer(step.p2 + i),
        );
        define(step.p3, count < 0 ? UNKNOWN : { kind: "call", name, args });
        break;
      }
      case "Integer":
      case "Int64":
      case "String8":
      case "String":
      case "Null":
      case "Variable": {
        for (const register of written(step)) define(register, this.#outer(register));
        break;
      }
      default:
        for (const register of written(step)) define(register, UNKNOWN);
    }
    return after;
  }

  /** A register read off a row: the looped row's field, or another cursor's row (values of its rows). */
  #column(cursor: number, column: number | "rowid"): Def {
    const btree = this.rowCursors.get(cursor);
    if (!btree) {
      const sources = this.facts.fieldValues(cursor, column);
      return sources === "unknown" ? UNKNOWN : { kind: "outer", sources };
    }
    const field = this.#field(btree, column);
    return field ? { kind: "field", field } : UNKNOWN;
  }

  #field(btree: Btree, column: number | "rowid"): PlannedField | undefined {
    const field = column === "rowid" ? "rowid" : btree.fields[column];
    if (!field) return undefined;
    if (field === "rowid") {
      if (btree.kind === "index" && !btree.fields.includes("rowid")) return undefined;
      return { table: btree.table, field, affinity: "integer", via: [] };
    }
    return { table: btree.table, field, affinity: field.affinity, via: [] };
  }

  /** A register the test does not write: what it holds over the whole program. */
  #outer(register: number): Def {
    const sources = this.facts.values(register);
    return sources === "unknown" ? UNKNOWN : { kind: "outer", sources };
  }

  /** The decision from `addr` on: `true` at the body, `false` at the next row or the loop's end. */
  #decision(
    addr: number,
    defs: Map<number, Map<number, Def>>,
    memo: Map<number, PlannedDecision>,
  ): PlannedDecision {
    if (addr >= this.#pass) return !this.#fail.has(addr) && addr === this.#pass;
    const known = memo.get(addr);
    if (known !== undefined) return known;
    const step = this.facts.program[addr]!;
    let decision: PlannedDecision;
    if (step.opcode === "Goto") decision = this.#decision(step.p2, defs, memo);
    else if (!TEST_STEPS.has(step.opcode)) decision = this.#decision(addr + 1, defs, memo);
    else
      decision = {
        atom: this.#atom(step, defs.get(addr) ?? new Map()),
        ifTrue: this.#decision(step.p2, defs, memo),
        ifFalse: this.#decision(addr + 1, defs, memo),
      };
    memo.set(addr, decision);
    return decision;
  }

  /** The test a jumping step makes: "it jumps". */
  #atom(step: ProgramStep, state: Map<number, Def>): PlannedAtom {
    const def = (register: number) => state.get(register) ?? this.#outer(register);
    const unknown: PlannedAtom = {
      kind: "unknown",
      text: `a test livecmd cannot read (${step.opcode})`,
    };
    if (COMPARISONS.has(step.opcode)) {
      const comparison = comparisonOf(step.opcode, step.p4, step.p5);
      const left = def(step.p3);
      const right = def(step.p1);
      if (!comparison) return unknown;
      if (left.kind === "field" && right.kind === "outer")
        return {
          kind: "compare",
          comparison,
          field: left.field,
          operand: right.sources,
          fieldLeft: true,
        };
      if (right.kind === "field" && left.kind === "outer")
        return {
          kind: "compare",
          comparison,
          field: right.field,
          operand: left.sources,
          fieldLeft: false,
        };
      return unknown;
    }
    if (step.opcode === "IsNull" || step.opcode === "NotNull") {
      const value = def(step.p1);
      return value.kind === "field"
        ? { kind: "null", field: value.field, jumpsIfNull: step.opcode === "IsNull" }
        : unknown;
    }
    if (step.opcode === "If" || step.opcode === "IfNot")
      return this.#likeAtom(step, def(step.p1)) ?? unknown;
    if ((step.opcode === "Found" || step.opcode === "NotFound") && step.p4 === 1) {
      const value = def(step.p3);
      const list = this.facts.listValues(step.p1);
      const collation = ephemeralCollation(this.facts, step.p1);
      if (value.kind !== "field" || list === "unknown" || !collation) return unknown;
      return {
        kind: "in",
        field: value.field,
        list,
        collation,
        jumpsIfFound: step.opcode === "Found",
      };
    }
    return unknown;
  }

  /** `If`/`IfNot` on the result of the built-in `like(pattern, value[, escape])`. */
  #likeAtom(step: ProgramStep, value: Def): PlannedAtom | undefined {
    if (value.kind !== "call" || !/^like\([23]\)$/.test(value.name)) return undefined;
    const [pattern, text, escape] = value.args;
    if (pattern?.kind !== "outer" || text?.kind !== "field") return undefined;
    if (escape && escape.kind !== "outer") return undefined;
    return {
      kind: "like",
      field: text.field,
      pattern: pattern.sources,
      escape: escape?.kind === "outer" ? escape.sources : undefined,
      jumpsIfTrue: step.opcode === "If",
      nullJumps: step.p3 !== 0,
    };
  }
}

/** Whether the steps from `from` up to the loop's `top` only set up values (and leave the loop on NULL). */
function setUpOnly(
  program: readonly ProgramStep[],
  from: number,
  top: number,
  end: number,
): boolean {
  for (let at = from; at < top; at += 1) {
    const { opcode, p2 } = program[at]!;
    if (!VALUE_STEPS.has(opcode) && !(opcode === "IsNull" && p2 === end)) return false;
  }
  return true;
}

function fieldName({ field }: PlannedField): string {
  return field === "rowid" ? "rowid" : field.name;
}

function sameField(a: PlannedField, b: PlannedField): boolean {
  if (a.table !== b.table || a.via.length > 0) return false;
  if (a.field === "rowid" || b.field === "rowid") return a.field === b.field;
  return a.field.name === b.field.name;
}

/** Steps that read the row a cursor is on. */
const READS_ROW = new Set(["Column", "Rowid", "IdxRowid", "RowData", "DeferredSeek"]);

function converted(def: Def, affinity: Affinity): Def {
  if (def.kind === "field")
    return { kind: "field", field: { ...def.field, via: [...def.field.via, affinity] } };
  if (def.kind === "outer")
    return {
      kind: "outer",
      sources: def.sources.map((source) => ({ ...source, via: [...source.via, affinity] })),
    };
  return UNKNOWN;
}

/** The definitions every path agrees on; a register they disagree on is unknown. */
function merged(states: readonly Map<number, Def>[]): Map<number, Def> {
  const [first, ...rest] = states;
  const result = new Map(first);
  for (const state of rest) {
    for (const [register, def] of result)
      if (state.get(register) !== def) result.set(register, UNKNOWN);
    for (const register of state.keys()) if (!result.has(register)) result.set(register, UNKNOWN);
  }
  return result;
}

function written(step: ProgramStep): readonly number[] {
  return registersWritten(step) ?? [];
}

/** The addresses `step` may jump to. */
function targets(step: ProgramStep): number[] {
  if (step.opcode === "Jump") return [step.p1, step.p2, step.p3];
  return JUMPS_TO_P2.has(step.opcode) ? [step.p2] : [];
}

/** The collation an ephemeral index compares its one key field with (`k(1,B)`: BINARY). */
function ephemeralCollation(facts: ProgramFacts, cursor: number): Collation | undefined {
  const open = facts.usesOf(cursor).find(({ opcode }) => opcode === "OpenEphemeral");
  const keyInfo = typeof open?.p4 === "string" ? /^k\(1,-?([^,)]*)\)$/.exec(open.p4) : null;
  return keyInfo ? collationNamed(keyInfo[1]!) : undefined;
}
