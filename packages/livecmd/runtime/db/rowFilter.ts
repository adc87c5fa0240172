import type { RowImage } from "./keyedAccess.ts";
import { compareScalars, scalarKey, scalarText, type Scalar } from "./scalar.ts";

/**
 * A column of a table as a filter's comparisons see it (its value after the conversions the
 * comparison applies, folded as its collation folds text): what the index of filters looks row
 * images up by. Views with the same `id` read images the same way.
 */
export interface View {
  readonly id: string;
  /** The row's value, as compared; null for NULL; undefined when the image cannot tell it. */
  of(image: RowImage): Scalar | null | undefined;
}

/** One end of an interval: a value, and whether the interval holds it. */
export interface Bound {
  readonly value: Scalar;
  readonly inclusive: boolean;
}

/** The values between two bounds (an absent bound: no end on that side); never NULL. */
export interface Interval {
  readonly lower?: Bound;
  readonly upper?: Bound;
}

/** A condition on one view that every row passing a test satisfies: what the index finds it by. */
export type Probe =
  | { readonly view: View; readonly equals: readonly Scalar[] }
  | { readonly view: View; readonly within: Interval };

/**
 * One test of a filter, on a row image: true or false as the database decides it for that row,
 * undefined when livecmd cannot tell from the image (a column it does not carry, a value it
 * cannot compare as the database would), which counts as either.
 */
export interface Atom {
  test(image: RowImage): boolean | undefined;
  /** Holds for every row the test is true of (absent: none known). */
  readonly whenTrue?: Probe;
  /** Holds for every row the test is false of. */
  readonly whenFalse?: Probe;
  /** The test as SQL, for `inspect --reads` and logs, and its negation. */
  readonly text: string;
  readonly negation: string;
  /** livecmd cannot evaluate it at all: it goes either way for every row. */
  readonly opaque?: boolean;
}

/** A test livecmd cannot evaluate (`what` it is, for messages): every row may go either way. */
export function opaque(what: string): Atom {
  return { test: () => undefined, text: `(${what})`, negation: `NOT (${what})`, opaque: true };
}

/**
 * Which rows a read keeps, as a decision diagram: `true` (kept), `false` (not), or a test and
 * what follows when it is true and when it is false. SQLite's program tests a row this way (a
 * comparison that jumps or falls through); PostgreSQL's AND and OR compile to it.
 */
export type Decision =
  boolean | { readonly atom: Atom; readonly ifTrue: Decision; readonly ifFalse: Decision };

/** `a AND b`: b decides where a keeps a row. */
export function both(a: Decision, b: Decision): Decision {
  return replaceLeaf(a, true, b);
}

/** `a OR b`: b decides where a drops a row. */
export function either(a: Decision, b: Decision): Decision {
  return replaceLeaf(a, false, b);
}

/** The test `atom` alone. */
export function test(atom: Atom): Decision {
  return { atom, ifTrue: true, ifFalse: false };
}

function replaceLeaf(decision: Decision, leaf: boolean, by: Decision): Decision {
  if (typeof decision === "boolean") return decision === leaf ? by : decision;
  return {
    atom: decision.atom,
    ifTrue: replaceLeaf(decision.ifTrue, leaf, by),
    ifFalse: replaceLeaf(decision.ifFalse, leaf, by),
  };
}

/**
 * A read of a table through a filter: it returns (or uses) only rows its decision keeps, so a
 * change matters to it only when the row before or after the change is kept. Where an image
 * cannot tell, the row counts as kept: a filter never misses a change, it only spares re-runs.
 */
export class RowFilter {
  /**
   * Conditions one of which every kept row satisfies (the index looks images up by them), or
   * undefined when none is known: then each change is tested against the filter.
   */
  readonly probes: readonly Probe[] | undefined;
  readonly text: string;

  constructor(readonly decision: Decision) {
    const needed = necessary(decision);
    this.probes = needed === ANY || needed === NONE ? undefined : needed;
    this.text = decisionText(decision).text;
  }

  /** Whether the row `image` shows may be one the read keeps. */
  admits(image: RowImage): boolean {
    return reaches(this.decision, image, new Set());
  }
}

/** Whether `decision` can keep the row: an untellable test follows both ways. */
function reaches(decision: Decision, image: RowImage, seen: Set<Decision>): boolean {
  for (let node = decision; ;) {
    if (typeof node === "boolean") return node;
    const outcome = node.atom.test(image);
    if (outcome !== undefined) {
      node = outcome ? node.ifTrue : node.ifFalse;
      continue;
    }
    if (seen.has(node)) return false;
    seen.add(node);
    return reaches(node.ifTrue, image, seen) || reaches(node.ifFalse, image, seen);
  }
}

/** No condition known (every row may be kept), or no row kept at all. */
const ANY = "any";
const NONE = "none";
type Needed = typeof ANY | typeof NONE | readonly Probe[];

/**
 * A condition every row `decision` keeps satisfies: on a path to `true`, each test taken holds
 * its probe for the way it went, so either way's probe met with what follows it, joined.
 */
function necessary(decision: Decision, memo = new Map<Decision, Needed>()): Needed {
  if (typeof decision === "boolean") return decision ? ANY : NONE;
  const known = memo.get(decision);
  if (known) return known;
  const { atom, ifTrue, ifFalse } = decision;
  const needed = join(
    meet(atom.whenTrue, necessary(ifTrue, memo)),
    meet(atom.whenFalse, necessary(ifFalse, memo)),
  );
  memo.set(decision, needed);
  return needed;
}

function meet(probe: Probe | undefined, then: Needed): Needed {
  if (then === NONE || probe === undefined) return then;
  if (then === ANY) return [probe];
  if (then.length === 1) {
    const narrowed = intersect(probe, then[0]!);
    if (narrowed) return [narrowed];
  }
  // Either holds; the one with fewer probes (and equality over ranges) finds fewer rows.
  return then.length > 1 || "within" in then[0]! ? [probe] : then;
}

function join(a: Needed, b: Needed): Needed {
  if (a === NONE) return b;
  if (b === NONE) return a;
  if (a === ANY || b === ANY) return ANY;
  return [...a, ...b];
}

/** Two probes on one view as one, when they are: the values both allow. */
function intersect(a: Probe, b: Probe): Probe | undefined {
  if (a.view.id !== b.view.id) return undefined;
  if ("equals" in a)
    return {
      view: a.view,
      equals: a.equals.filter((value) =>
        "equals" in b ? holdsOne(b.equals, value) : within(b.within, value),
      ),
    };
  if ("equals" in b) return intersect(b, a);
  return {
    view: a.view,
    within: {
      lower: tighter(a.within.lower, b.within.lower, 1),
      upper: tighter(a.within.upper, b.within.upper, -1),
    },
  };
}

function holdsOne(values: readonly Scalar[], value: Scalar): boolean {
  const key = scalarKey(value);
  return values.some((other) => scalarKey(other) === key);
}

/** Whether `value` lies in `interval`. */
export function within(interval: Interval, value: Scalar): boolean {
  const { lower, upper } = interval;
  if (lower) {
    const order = compareScalars(value, lower.value);
    if (order < 0 || (order === 0 && !lower.inclusive)) return false;
  }
  if (upper) {
    const order = compareScalars(value, upper.value);
    if (order > 0 || (order === 0 && !upper.inclusive)) return false;
  }
  return true;
}

/** The tighter of two lower bounds (`direction` 1) or upper bounds (-1). */
function tighter(a: Bound | undefined, b: Bound | undefined, direction: 1 | -1): Bound | undefined {
  if (!a || !b) return a ?? b;
  const order = compareScalars(a.value, b.value) * direction;
  if (order !== 0) return order > 0 ? a : b;
  return a.inclusive ? b : a;
}

/**
 * Every text that begins with `prefix` (not empty), in code-point order: from it, up to the text
 * of its length that follows it. What a LIKE with a fixed prefix keeps lies within.
 */
export function prefixInterval(prefix: string): Interval {
  const chars = [...prefix];
  const last = chars.pop()!.codePointAt(0)!;
  const next = last === 0xd7ff ? 0xe000 : last + 1;
  const lower = { value: { kind: "text", value: prefix } as const, inclusive: true };
  if (next > 0x10ffff) return { lower };
  const upper = { kind: "text", value: chars.join("") + String.fromCodePoint(next) } as const;
  return { lower, upper: { value: upper, inclusive: false } };
}

/** The text of an interval on `column`: `total > 50000`, `total BETWEEN 1 AND 5`. */
export function intervalText(column: string, { lower, upper }: Interval): string {
  if (lower?.inclusive && upper?.inclusive)
    return `${column} BETWEEN ${scalarText(lower.value)} AND ${scalarText(upper.value)}`;
  const sides = [
    lower && `${column} ${lower.inclusive ? ">=" : ">"} ${scalarText(lower.value)}`,
    upper && `${column} ${upper.inclusive ? "<=" : "<"} ${scalarText(upper.value)}`,
  ].filter((side) => side !== undefined);
  return sides.length > 0 ? sides.join(" AND ") : `${column} IS NOT NULL`;
}

type Rendered = { readonly text: string; readonly joiner: "AND" | "OR" | undefined };

/** What a decision no test of which livecmd can evaluate is shown as. */
const OPAQUE: Rendered = { text: "(conditions livecmd cannot test)", joiner: undefined };

/** A decision as SQL: its tests joined by AND and OR, parenthesized where they mix. */
function decisionText(decision: Decision): Rendered {
  if (typeof decision === "boolean")
    return { text: decision ? "TRUE" : "FALSE", joiner: undefined };
  if (allOpaque(decision)) return OPAQUE;
  const { atom, ifTrue, ifFalse } = decision;
  const yes = { text: atom.text, joiner: undefined };
  const no = { text: atom.negation, joiner: undefined };
  if (ifTrue === true && ifFalse === false) return yes;
  if (ifTrue === false && ifFalse === true) return no;
  if (ifFalse === false) return joined("AND", yes, decisionText(ifTrue));
  if (ifTrue === false) return joined("AND", no, decisionText(ifFalse));
  if (ifTrue === true) return joined("OR", yes, decisionText(ifFalse));
  if (ifFalse === true) return joined("OR", no, decisionText(ifTrue));
  return joined(
    "OR",
    joined("AND", yes, decisionText(ifTrue)),
    joined("AND", no, decisionText(ifFalse)),
  );
}

function allOpaque(decision: Decision): boolean {
  if (typeof decision === "boolean") return true;
  return decision.atom.opaque === true && allOpaque(decision.ifTrue) && allOpaque(decision.ifFalse);
}

function joined(joiner: "AND" | "OR", a: Rendered, b: Rendered): Rendered {
  const part = ({ text, joiner: inner }: Rendered) =>
    inner === undefined || inner === joiner ? text : `(${text})`;
  return { text: `${part(a)} ${joiner} ${part(b)}`, joiner };
}
