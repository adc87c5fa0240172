import type { ProgramStep } from "./sqliteProgram.ts";
import type { Affinity } from "../sqliteSchema.ts";

/**
 * What each opcode livecmd knows does to registers, from SQLite's opcode documentation
 * (opcode.html). A program with any other opcode is read as reading every table it opens whole:
 * an opcode whose writes are not known could change a key register unseen.
 */
type RegisterEffect = (step: ProgramStep) => readonly number[];

const none: RegisterEffect = () => [];
const p1: RegisterEffect = (step) => [step.p1];
const p2: RegisterEffect = (step) => [step.p2];
const p3: RegisterEffect = (step) => [step.p3];
const span = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

const WRITES: Readonly<Record<string, RegisterEffect>> = {
  ...Object.fromEntries(
    [
      ...["Init", "Goto", "Halt", "Transaction", "TableLock", "Noop", "Explain", "Trace"],
      ...["OpenRead", "OpenEphemeral", "OpenAutoindex", "OpenDup", "OpenPseudo", "SorterOpen"],
      ...["Close", "NullRow", "ResultRow", "IdxInsert", "SorterInsert", "Insert"],
      ...["Rewind", "Last", "Next", "Prev", "SorterSort", "Sort", "SorterNext"],
      ...["SeekRowid", "NotExists", "SeekGE", "SeekGT", "SeekLE", "SeekLT", "SeekScan"],
      ...["IdxGT", "IdxGE", "IdxLT", "IdxLE", "DeferredSeek", "FinishSeek", "SeekHit"],
      ...["Found", "NotFound", "NoConflict", "IfNoHope", "IsNull", "NotNull", "If", "IfNot"],
      ...["IsType", "Once", "Return", "EndCoroutine", "Jump", "Compare", "Permutation"],
      ...["CursorHint", "ColumnsUsed", "Filter", "VOpen", "VFilter", "VNext", "ElseEq"],
      ...["SorterCompare", "Eq", "Ne", "Lt", "Le", "Gt", "Ge"],
      // Deletes a row of an ephemeral table (a sort with a LIMIT); a write to the app's opens it for writing.
      "Delete",
      // They change a register's storage class in place, as `conversions` says.
      ...["Affinity", "MustBeInt", "RealAffinity"],
    ].map((opcode) => [opcode, none]),
  ),
  ...Object.fromEntries(
    ["SoftNull", "Gosub", "InitCoroutine", "Yield", "IfPos", "IfNotZero", "DecrJumpZero"]
      // CAST is not an affinity ('7.5' AS INTEGER is 7): a new value, as far as keys go.
      .concat(["AddImm", "AggFinal", "CollSeq", "FilterAdd", "Cast"])
      .map((opcode) => [opcode, p1]),
  ),
  ...Object.fromEntries(
    ["Variable", "Integer", "Int64", "Real", "String8", "String", "Blob", "Rowid", "IdxRowid"]
      .concat(["Sequence", "NewRowid", "SorterData", "RowData", "Not", "BitNot", "ZeroOrNull"])
      .concat(["IsTrue", "Count", "SCopy", "IntCopy", "OffsetLimit", "BeginSubrtn"])
      .map((opcode) => [opcode, p2]),
  ),
  ...Object.fromEntries(
    ["Column", "MakeRecord", "Function", "PureFunc", "Add", "Subtract", "Multiply", "Divide"]
      .concat(["Remainder", "Concat", "BitAnd", "BitOr", "ShiftLeft", "ShiftRight", "And", "Or"])
      .concat(["AggStep", "AggValue", "AggInverse", "VColumn", "IfNullRow"])
      .map((opcode) => [opcode, p3]),
  ),
  Null: (step) => span(step.p2, Math.max(step.p3 - step.p2, 0) + 1),
  Copy: (step) => span(step.p2, step.p3 + 1),
  // Move empties its sources too.
  Move: (step) => [...span(step.p2, step.p3), ...span(step.p1, step.p3)],
};

/** The registers `step` writes, or undefined when livecmd does not know its opcode. */
export function registersWritten(step: ProgramStep): readonly number[] | undefined {
  return WRITES[step.opcode]?.(step);
}

/** The affinities SQLite names by letter in P4 strings. */
const AFFINITY_LETTERS: Readonly<Record<string, Affinity>> = {
  A: "blob",
  B: "text",
  C: "numeric",
  D: "integer",
  E: "real",
};

/** The affinity a converter applies to each register it converts in place. */
export function conversions(step: ProgramStep): readonly [number, Affinity][] {
  switch (step.opcode) {
    case "Affinity":
      return affinityLetters(step.p4).map((affinity, i) => [step.p1 + i, affinity]);
    case "MustBeInt":
      return [[step.p1, "integer"]];
    case "RealAffinity":
      return [[step.p1, "real"]];
    default:
      return [];
  }
}

/** The affinity letters of a P4 string (`"DB"`), one per register or record field. */
export function affinityLetters(p4: unknown): Affinity[] {
  return [...(typeof p4 === "string" ? p4 : "")].map(
    (letter) => AFFINITY_LETTERS[letter] ?? "blob",
  );
}
