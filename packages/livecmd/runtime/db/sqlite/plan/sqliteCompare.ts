import { byCodePoint, compareScalars } from "../../scalar.ts";
import { collated, numberAsText, textAsNumber, type Typed } from "../sqliteKeys.ts";
import type { Collation } from "../sqliteSchema.ts";

/**
 * How SQLite's comparison opcodes (`Eq`, `Ne`, `Lt`, `Le`, `Gt`, `Ge`) and its built-in `LIKE`
 * decide, reproduced from SQLite's source (`sqlite3VdbeExec`, `sqlite3MemCompare`, `likeFunc`)
 * for the values a row image and a bound statement hold. Wherever the outcome depends on what
 * livecmd cannot see (a real's text beyond what every SQLite version prints alike, a collation of
 * the app's), the answer is undefined: the row counts as kept.
 */

/** A value in a register: a storage class, or NULL. */
export type Value = Typed | null;

/**
 * A comparison operand: its value, and whether its storage class is known exactly (a row image
 * writes 7 and 7.0 alike, which a comparison under TEXT affinity would print differently).
 */
export interface Operand {
  readonly value: Value;
  readonly exact: boolean;
}

export type ComparisonOpcode = "Eq" | "Ne" | "Lt" | "Le" | "Gt" | "Ge";

/** What a comparison opcode's P4 and P5 say: the affinity it applies, its collation, its NULL handling. */
export interface Comparison {
  readonly opcode: ComparisonOpcode;
  /** P5's affinity bits (`SQLITE_AFF_*`, 0x40 to 0x46). */
  readonly affinity: number;
  readonly collation: Collation;
  readonly jumpIfNull: boolean;
  readonly nullEq: boolean;
}

const AFF_TEXT = 0x42;
const AFF_NUMERIC = 0x43;
const AFF_MASK = 0x47;
const JUMP_IF_NULL = 0x10;
const NULL_EQ = 0x80;

const COMPARISON_OPCODES = new Set<string>(["Eq", "Ne", "Lt", "Le", "Gt", "Ge"]);

/** A comparison opcode's semantics from its P4 (`BINARY-8`) and P5; undefined for a collation livecmd does not know. */
export function comparisonOf(opcode: string, p4: unknown, p5: number): Comparison | undefined {
  if (!COMPARISON_OPCODES.has(opcode)) return undefined;
  const collation = collationNamed(typeof p4 === "string" ? p4.replace(/-\w+$/, "") : "");
  return (
    collation && {
      opcode: opcode as ComparisonOpcode,
      affinity: p5 & AFF_MASK,
      collation,
      jumpIfNull: (p5 & JUMP_IF_NULL) !== 0,
      nullEq: (p5 & NULL_EQ) !== 0,
    }
  );
}

/** A collation by the name a program writes it (`B` in a key info is BINARY; none is BINARY). */
export function collationNamed(name: string): Collation | undefined {
  const upper = name.toUpperCase();
  if (upper === "" || upper === "B" || upper === "BINARY") return "BINARY";
  return upper === "NOCASE" || upper === "RTRIM" ? upper : undefined;
}

/** Whether the comparison jumps for r[P3] = `left` and r[P1] = `right`; undefined when not sure. */
export function comparisonJumps(
  comparison: Comparison,
  left: Operand,
  right: Operand,
): boolean | undefined {
  let order: number | undefined;
  if (left.value === null || right.value === null) {
    if (!comparison.nullEq) return comparison.jumpIfNull;
    order = left.value === null && right.value === null ? 0 : left.value === null ? -1 : 1;
  } else {
    const [a, b] = converted(comparison.affinity, left, right);
    if (!a || !b) return undefined;
    order = compareValues(a, b, comparison.collation);
  }
  switch (comparison.opcode) {
    case "Eq":
      return order === 0;
    case "Ne":
      return order !== 0;
    case "Lt":
      return order < 0;
    case "Le":
      return order <= 0;
    case "Gt":
      return order > 0;
    default:
      return order >= 0;
  }
}

/** Two values as SQLite orders them (`sqlite3MemCompare`): numbers, then text under `collation`, then blobs. */
export function compareValues(a: Typed, b: Typed, collation: Collation): number {
  if (a.kind === "text" && b.kind === "text")
    return byCodePoint(collated(a.value, collation), collated(b.value, collation));
  return compareScalars(a, b);
}

/**
 * The operands as the comparison sees them: under a numeric affinity, text that reads as a number
 * becomes one when either side is text; under TEXT, numbers become text when either side is.
 */
function converted(
  affinity: number,
  left: Operand,
  right: Operand,
): [Typed | undefined, Typed | undefined] {
  const a = left.value!;
  const b = right.value!;
  const eitherText = a.kind === "text" || b.kind === "text";
  if (!eitherText) return [a, b];
  if (affinity >= AFF_NUMERIC)
    return [
      a.kind === "text" ? textAsNumber(a.value) : a,
      b.kind === "text" ? textAsNumber(b.value) : b,
    ];
  if (affinity === AFF_TEXT) return [asText(left), asText(right)];
  return [a, b];
}

/** A value as text, the way SQLite prints a number; undefined when the print cannot be told. */
export function asText({ value, exact }: Operand): Typed | undefined {
  if (value === null || value.kind !== "number") return value ?? undefined;
  if (!exact && Number.isInteger(Number(value.value))) return undefined;
  return numberAsText(value.value);
}

/**
 * Whether `text` matches `pattern` as SQLite's built-in LIKE decides (`patternCompare`): `%` any
 * run of characters, `_` one, `escape` (when given) takes the next character as it is; letters
 * compared without case for ASCII only (unless `caseSensitive`, PRAGMA case_sensitive_like).
 */
export function likeMatches(
  pattern: string,
  text: string,
  caseSensitive: boolean,
  escape?: string,
): boolean {
  const fold = (char: string) =>
    caseSensitive ? char : char.replace(/[A-Z]/, (c) => c.toLowerCase());
  const p = [...pattern].map(fold);
  const t = [...text].map(fold);
  const escaping = escape === undefined ? undefined : fold(escape);
  // Positions in the text where the rest of the pattern, from each position, may start.
  const memo = new Map<number, boolean>();
  const match = (at: number, from: number): boolean => {
    const key = at * (t.length + 1) + from;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (at === p.length) result = from === t.length;
    else if (p[at] === escaping)
      // An escape with nothing after it matches nothing.
      result =
        at + 1 < p.length && from < t.length && t[from] === p[at + 1] && match(at + 2, from + 1);
    else if (p[at] === "%") {
      result = false;
      for (let next = from; next <= t.length && !result; next += 1) result = match(at + 1, next);
    } else if (p[at] === "_") result = from < t.length && match(at + 1, from + 1);
    else result = from < t.length && t[from] === p[at] && match(at + 1, from + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}
