import type { RowImage } from "../../keyedAccess.ts";
import {
  opaque,
  prefixInterval,
  RowFilter,
  intervalText,
  type Atom,
  type Decision,
  type Interval,
  type Probe,
  type View,
} from "../../rowFilter.ts";
import { scalarText, type Scalar } from "../../scalar.ts";
import type { PlannedAtom, PlannedDecision, PlannedField } from "./planFilters.ts";
import type { KeySource } from "./planReads.ts";
import {
  asText,
  comparisonJumps,
  compareValues,
  likeMatches,
  type Comparison,
  type ComparisonOpcode,
  type Operand,
} from "./sqliteCompare.ts";
import { collated, textAsNumber, withAffinity, type Typed } from "../sqliteKeys.ts";
import type { Affinity, Collation } from "../sqliteSchema.ts";

/** How a filter's sources are bound: each source's values as registers hold them, or undefined when unknown. */
export interface FilterBinding {
  operands(sources: readonly KeySource[]): readonly Operand[] | undefined;
  /** How the connection's LIKE compares letters, when it is SQLite's built-in one; undefined otherwise. */
  like(): "sensitive" | "insensitive" | undefined;
}

/** A planned decision with its values bound: the filter a run of the statement read a table through. */
export function boundFilter(decision: PlannedDecision, binding: FilterBinding): RowFilter {
  const memo = new Map<PlannedDecision, Decision>();
  const bind = (node: PlannedDecision): Decision => {
    if (typeof node === "boolean") return node;
    const known = memo.get(node);
    if (known !== undefined) return known;
    const bound = {
      atom: boundAtom(node.atom, binding),
      ifTrue: bind(node.ifTrue),
      ifFalse: bind(node.ifFalse),
    };
    memo.set(node, bound);
    return bound;
  };
  return new RowFilter(bind(decision));
}

function boundAtom(atom: PlannedAtom, binding: FilterBinding): Atom {
  switch (atom.kind) {
    case "compare":
      return compareAtom(atom, binding.operands(atom.operand));
    case "null":
      return nullAtom(atom.field, atom.jumpsIfNull);
    case "like":
      return likeAtom(atom, binding);
    case "in":
      return inAtom(atom, binding.operands(atom.list));
    case "range":
      return rangeAtom(atom, binding);
    default:
      return opaque(atom.text);
  }
}

/** The image's value of a field, converted as the program converts it, and whether its storage class is sure. */
function fieldOperand(image: RowImage, field: PlannedField): Operand | undefined {
  const stored = storedValue(image, field);
  if (stored === undefined) return undefined;
  let operand: Operand | undefined = stored;
  for (const affinity of field.via) operand = operand && converted(operand, affinity);
  return operand;
}

/**
 * An operand converted in place by `affinity` (`Affinity`, `RealAffinity`): text that reads as a
 * number becomes one under a numeric affinity; a number becomes text under TEXT, as SQLite prints
 * it; an integer becomes a real under REAL. Undefined when the outcome cannot be told.
 */
export function converted({ value, exact }: Operand, affinity: Affinity): Operand | undefined {
  if (value === null) return { value, exact };
  if (affinity === "text") {
    const text = asText({ value, exact });
    return text && { value: text, exact: true };
  }
  if (affinity === "real" && typeof value.value === "bigint")
    return value.value >= -(2n ** 53n) && value.value <= 2n ** 53n
      ? { value: { kind: "number", value: Number(value.value) }, exact: true }
      : undefined;
  const number = withAffinity(value, affinity);
  return number && { value: number, exact: exact || value.kind === "text" };
}

/**
 * A field's value as the image holds it (`n`, `t` or `b` and the value, as `storedKey` writes
 * it). Whole numbers are written alike for integers and reals: an INTEGER or NUMERIC column
 * stores them as integers, a REAL column as reals, any other column either way.
 */
function storedValue(image: RowImage, field: PlannedField): Operand | undefined {
  const entry = image[fieldKey(field)];
  if (entry === undefined) return undefined;
  if (entry === null) return { value: null, exact: true };
  const value = entry.slice(1);
  if (entry.startsWith("t")) return { value: { kind: "text", value }, exact: true };
  if (entry.startsWith("b")) return { value: { kind: "blob", value }, exact: true };
  if (!/^-?\d+$/.test(value))
    return { value: { kind: "number", value: Number(value) }, exact: true };
  if (field.affinity === "real")
    return { value: { kind: "number", value: Number(value) }, exact: true };
  const exact = field.affinity === "integer" || field.affinity === "numeric";
  return { value: { kind: "number", value: BigInt(value) }, exact };
}

/** The key a field's value has in a row image: the column's name, or `rowid`. */
function fieldKey(field: PlannedField): string {
  return field.field === "rowid" ? "rowid" : field.field.name;
}

/**
 * The view of a field the index may look images up by under `collation`: its stored value, text
 * folded as the collation folds it. Only for a field the program does not convert, or converts to
 * the class its column already stores (a TEXT column's text, a numeric column's numbers).
 */
function viewOf(
  field: PlannedField,
  collation: Collation,
  affinities: readonly number[],
): View | undefined {
  const stable = [...field.via.map(affinityCode), ...affinities].every((affinity) =>
    keepsStored(affinity, field.affinity),
  );
  if (!stable) return undefined;
  const suffix = collation === "BINARY" ? "" : ` COLLATE ${collation}`;
  return {
    id: `${fieldKey(field)}${suffix}`,
    of(image) {
      const stored = storedValue(image, field);
      if (!stored) return undefined;
      const { value } = stored;
      if (value === null) return null;
      return value.kind === "text"
        ? { kind: "text", value: collated(value.value, collation) }
        : value;
    },
  };
}

const AFFINITY_CODES: Readonly<Record<Affinity, number>> = {
  blob: 0x41,
  text: 0x42,
  numeric: 0x43,
  integer: 0x44,
  real: 0x45,
};

function affinityCode(affinity: Affinity): number {
  return AFFINITY_CODES[affinity];
}

/** Whether converting what a column of `column` affinity stores by `affinity` leaves it as it is. */
function keepsStored(affinity: number, column: Affinity): boolean {
  if (affinity < 0x42) return true;
  if (affinity === 0x42) return column === "text";
  return column === "integer" || column === "numeric" || column === "real";
}

/** An operand as a comparison under `affinity` compares it with text: what a probe holds it as. */
function probeValue(operand: Operand, affinity: number, collation: Collation): Scalar | undefined {
  const { value } = operand;
  if (value === null) return undefined;
  let converted: Typed | undefined = value;
  if (affinity >= 0x43 && value.kind === "text") converted = textAsNumber(value.value);
  else if (affinity === 0x42) converted = asText(operand);
  if (!converted) return undefined;
  return converted.kind === "text"
    ? { kind: "text", value: collated(converted.value, collation) }
    : converted;
}

const FLIPPED: Readonly<Record<ComparisonOpcode, ComparisonOpcode>> = {
  Eq: "Eq",
  Ne: "Ne",
  Lt: "Gt",
  Le: "Ge",
  Gt: "Lt",
  Ge: "Le",
};
const NEGATED: Readonly<Record<ComparisonOpcode, ComparisonOpcode>> = {
  Eq: "Ne",
  Ne: "Eq",
  Lt: "Ge",
  Le: "Gt",
  Gt: "Le",
  Ge: "Lt",
};
const SQL_OPERATOR: Readonly<Record<ComparisonOpcode, string>> = {
  Eq: "=",
  Ne: "<>",
  Lt: "<",
  Le: "<=",
  Gt: ">",
  Ge: ">=",
};

function compareAtom(
  atom: Extract<PlannedAtom, { kind: "compare" }>,
  operands: readonly Operand[] | undefined,
): Atom {
  const { comparison, field, fieldLeft } = atom;
  // The test as `field OP value`, whichever side the program put the field on.
  const opcode = fieldLeft ? comparison.opcode : FLIPPED[comparison.opcode];
  const text = (op: ComparisonOpcode) =>
    `${fieldKey(field)} ${operatorText(op, operands?.length ?? 1)} ${valuesText(operands)}${collationText(comparison.collation)}`;
  if (!operands || operands.length === 0)
    return opaque(`${fieldKey(field)} compared with values livecmd cannot tell`);
  return {
    test(image) {
      const value = fieldOperand(image, field);
      if (!value) return undefined;
      let every = true;
      let some = false;
      for (const operand of operands) {
        const jumps = fieldLeft
          ? comparisonJumps(comparison, value, operand)
          : comparisonJumps(comparison, operand, value);
        if (jumps === undefined) return undefined;
        every &&= jumps;
        some ||= jumps;
      }
      return every ? true : some ? undefined : false;
    },
    ...compareProbes(comparison, opcode, field, operands),
    text: text(opcode),
    negation: text(NEGATED[opcode]),
  };
}

/**
 * What rows a comparison `field OP value` jumps for, and falls through for, as probes: NULL
 * jumps or falls through as P5 says, and a probe never holds NULL, so only the side NULL does
 * not take gets one.
 */
function compareProbes(
  comparison: Comparison,
  opcode: ComparisonOpcode,
  field: PlannedField,
  operands: readonly Operand[],
): { whenTrue?: Probe; whenFalse?: Probe } {
  const view = viewOf(field, comparison.collation, [comparison.affinity]);
  if (!view) return {};
  const values = operands.map((operand) =>
    probeValue(operand, comparison.affinity, comparison.collation),
  );
  if (values.some((value) => value === undefined)) return {};
  const scalars = values as Scalar[];
  const nullTrue = comparison.nullEq ? false : comparison.jumpIfNull;
  const nullFalse = comparison.nullEq ? false : !comparison.jumpIfNull;
  const equals = (): Probe => ({ view, equals: scalars });
  const single = scalars.length === 1 ? scalars[0]! : undefined;
  const interval = (op: ComparisonOpcode): Probe | undefined =>
    single && op !== "Eq" && op !== "Ne" ? { view, within: rangeOf(op, single) } : undefined;
  // With NULLEQ, NULL = NULL jumps for Eq: a value of NULL would need a probe for NULL.
  const nullOperand = operands.some(({ value }) => value === null);
  if (nullOperand) return {};
  return {
    ...(!nullTrue && { whenTrue: opcode === "Eq" ? equals() : interval(opcode) }),
    ...(!nullFalse && { whenFalse: opcode === "Ne" ? equals() : interval(NEGATED[opcode]) }),
  };
}

function rangeOf(opcode: ComparisonOpcode, value: Scalar): Interval {
  switch (opcode) {
    case "Lt":
      return { upper: { value, inclusive: false } };
    case "Le":
      return { upper: { value, inclusive: true } };
    case "Gt":
      return { lower: { value, inclusive: false } };
    default:
      return { lower: { value, inclusive: true } };
  }
}

/** `=`, or `IN` for many values (a lookup's), `<>` or `NOT IN`, `< ANY` for the rest. */
function operatorText(opcode: ComparisonOpcode, count: number): string {
  if (count === 1) return SQL_OPERATOR[opcode];
  if (opcode === "Eq") return "IN";
  return opcode === "Ne" ? "NOT IN" : `${SQL_OPERATOR[opcode]} ANY`;
}

function nullAtom(field: PlannedField, jumpsIfNull: boolean): Atom {
  const view = viewOf(field, "BINARY", []);
  const notNull: Probe | undefined = view && { view, within: {} };
  const name = fieldKey(field);
  return {
    test(image) {
      const value = storedValue(image, field);
      return value === undefined ? undefined : (value.value === null) === jumpsIfNull;
    },
    ...(notNull && (jumpsIfNull ? { whenFalse: notNull } : { whenTrue: notNull })),
    text: jumpsIfNull ? `${name} IS NULL` : `${name} IS NOT NULL`,
    negation: jumpsIfNull ? `${name} IS NOT NULL` : `${name} IS NULL`,
  };
}

function likeAtom(atom: Extract<PlannedAtom, { kind: "like" }>, binding: FilterBinding): Atom {
  const patterns = binding.operands(atom.pattern);
  const escapes = atom.escape && binding.operands(atom.escape);
  const mode = binding.like();
  const name = fieldKey(atom.field);
  if (!patterns || patterns.length !== 1 || (atom.escape && escapes?.length !== 1) || !mode)
    return opaque(`${name} LIKE a pattern livecmd cannot tell`);
  const pattern = textOf(patterns[0]!);
  const escape = escapes ? textOf(escapes[0]!) : undefined;
  if (
    pattern === undefined ||
    (escapes && (typeof escape !== "string" || [...escape].length !== 1))
  )
    return opaque(`${name} LIKE a pattern livecmd cannot tell`);
  const like = (image: RowImage): boolean | null | undefined => {
    const value = fieldOperand(image, atom.field);
    if (!value) return undefined;
    const text = textOf(value);
    if (text === undefined) return undefined;
    if (text === null || pattern === null) return null;
    return likeMatches(pattern, text, mode === "sensitive", escape ?? undefined);
  };
  const prefix = pattern === null ? "" : fixedPrefix(pattern, escape ?? undefined);
  const collation = mode === "sensitive" ? "BINARY" : "NOCASE";
  const view = atom.field.affinity === "text" ? viewOf(atom.field, collation, [0x42]) : undefined;
  const matching: Probe | undefined =
    view && prefix !== ""
      ? { view, within: prefixInterval(collated(prefix, collation)) }
      : undefined;
  const likeText = `${name} LIKE ${pattern === null ? "NULL" : scalarText({ kind: "text", value: pattern })}`;
  const notLikeText = likeText.replace(" LIKE ", " NOT LIKE ");
  return {
    test(image) {
      const matched = like(image);
      if (matched === undefined) return undefined;
      if (matched === null) return atom.nullJumps;
      return matched === atom.jumpsIfTrue;
    },
    ...(matching && (atom.jumpsIfTrue ? { whenTrue: matching } : { whenFalse: matching })),
    text: atom.jumpsIfTrue ? likeText : notLikeText,
    negation: atom.jumpsIfTrue ? notLikeText : likeText,
  };
}

/** A value as LIKE reads it: text (a number printed as SQLite prints it), null for NULL; undefined for a blob or an unsure print. */
function textOf(operand: Operand): string | null | undefined {
  if (operand.value === null) return null;
  const text = asText(operand);
  return text?.kind === "text" ? text.value : undefined;
}

/** The characters every match of `pattern` begins with. */
function fixedPrefix(pattern: string, escape: string | undefined): string {
  let prefix = "";
  const chars = [...pattern];
  for (let at = 0; at < chars.length; at += 1) {
    const char = chars[at]!;
    if (char === escape) {
      if (at + 1 >= chars.length) return prefix;
      prefix += chars[(at += 1)]!;
    } else if (char === "%" || char === "_") return prefix;
    else prefix += char;
  }
  return prefix;
}

function inAtom(
  atom: Extract<PlannedAtom, { kind: "in" }>,
  list: readonly Operand[] | undefined,
): Atom {
  const name = fieldKey(atom.field);
  if (!list) return opaque(`${name} IN a list livecmd cannot tell`);
  const text = `${name} IN ${valuesText(list, true)}${collationText(atom.collation)}`;
  const negation = text.replace(" IN ", " NOT IN ");
  const view = viewOf(atom.field, atom.collation, []);
  const values = list.map(({ value }) => value);
  const found: Probe | undefined =
    view && values.every((value) => value !== null)
      ? {
          view,
          equals: (values as Typed[]).map((value) =>
            value.kind === "text"
              ? { kind: "text", value: collated(value.value, atom.collation) }
              : value,
          ),
        }
      : undefined;
  return {
    test(image) {
      const value = fieldOperand(image, atom.field);
      if (!value || value.value === null) return undefined;
      const field = value.value;
      const isIn = values.some(
        (other) => other !== null && compareValues(field, other, atom.collation) === 0,
      );
      return isIn === atom.jumpsIfFound;
    },
    ...(found && (atom.jumpsIfFound ? { whenTrue: found } : { whenFalse: found })),
    text: atom.jumpsIfFound ? text : negation,
    negation: atom.jumpsIfFound ? negation : text,
  };
}

function rangeAtom(atom: Extract<PlannedAtom, { kind: "range" }>, binding: FilterBinding): Atom {
  const bound = (planned: typeof atom.lower) => {
    if (!planned) return undefined;
    const operands = planned.sources.length > 0 ? binding.operands(planned.sources) : undefined;
    const value = operands?.length === 1 ? operands[0]!.value : undefined;
    return value ? { value, inclusive: planned.inclusive } : null;
  };
  const lower = bound(atom.lower);
  const upper = bound(atom.upper);
  const name = fieldKey(atom.field);
  if (lower === null || upper === null) return opaque(`a range on ${name}`);
  const interval: Interval = {
    ...(lower && { lower: foldedBound(lower, atom.collation) }),
    ...(upper && { upper: foldedBound(upper, atom.collation) }),
  };
  const view = viewOf(atom.field, atom.collation, []);
  const text = intervalText(name, interval) + collationText(atom.collation);
  return {
    test(image) {
      const stored = storedValue(image, atom.field);
      if (!stored) return undefined;
      if (stored.value === null) return !lower;
      const value = stored.value;
      const above = (edge: { value: Typed; inclusive: boolean }) => {
        const order = compareValues(value, edge.value, atom.collation);
        return order > 0 || (order === 0 && edge.inclusive);
      };
      const below = (edge: { value: Typed; inclusive: boolean }) => {
        const order = compareValues(value, edge.value, atom.collation);
        return order < 0 || (order === 0 && edge.inclusive);
      };
      return (!lower || above(lower)) && (!upper || below(upper));
    },
    ...(view && lower && { whenTrue: { view, within: interval } }),
    text,
    negation: `NOT (${text})`,
  };
}

function foldedBound(bound: { value: Typed; inclusive: boolean }, collation: Collation) {
  const { value } = bound;
  return {
    value:
      value.kind === "text"
        ? { kind: "text" as const, value: collated(value.value, collation) }
        : value,
    inclusive: bound.inclusive,
  };
}

function collationText(collation: Collation): string {
  return collation === "BINARY" ? "" : ` COLLATE ${collation}`;
}

/** Values as SQL: one, or a list (the first few, and how many more). */
function valuesText(operands: readonly Operand[] | undefined, list = false): string {
  if (!operands) return "?";
  const shown = operands
    .slice(0, 5)
    .map(({ value }) => (value === null ? "NULL" : scalarText(value)));
  const more = operands.length > 5 ? [`… ${operands.length - 5} more`] : [];
  return !list && operands.length === 1 ? shown[0]! : `(${[...shown, ...more].join(", ")})`;
}
