/**
 * A value as a filter compares it, the same for both databases: numbers (exact integers as
 * bigints, doubles, and PostgreSQL's exact decimals, all compared by value), text (compared by
 * code point, after whatever folding the comparison's collation does) and blobs (upper-case hex,
 * compared as bytes). Kinds are ordered as SQLite orders storage classes: numbers, then text, then
 * blobs. PostgreSQL compares values of one type with each other, so only SQLite meets that order.
 */
export type Scalar =
  | { readonly kind: "number"; readonly value: number | bigint }
  | { readonly kind: "decimal"; readonly digits: bigint; readonly scale: number }
  | { readonly kind: "text"; readonly value: string }
  | { readonly kind: "blob"; readonly value: string };

const RANK = { number: 0, decimal: 0, text: 1, blob: 2 } as const;

/** The order of two scalars: negative, zero (equal), positive. */
export function compareScalars(a: Scalar, b: Scalar): number {
  const rank = RANK[a.kind] - RANK[b.kind];
  if (rank !== 0) return rank;
  if (a.kind === "text" || a.kind === "blob")
    return byCodePoint(a.value, (b as { value: string }).value);
  return compareNumbers(a, b as NumericScalar);
}

/**
 * A text that two scalars share exactly when they compare equal (7, 7.0 and the decimal 7.00 are
 * one number): what equality probes are looked up by.
 */
export function scalarKey(scalar: Scalar): string {
  if (scalar.kind === "text") return `t${scalar.value}`;
  if (scalar.kind === "blob") return `b${scalar.value}`;
  const { value } = scalar as { value?: number | bigint };
  if (typeof value === "bigint") return `n${value}`;
  if (typeof value === "number" && Number.isInteger(value)) return `n${BigInt(value)}`;
  if (typeof value === "number" && !Number.isFinite(value)) return `n${value}`;
  const { numerator, denominator } = rational(scalar as NumericScalar);
  const common = gcd(numerator < 0n ? -numerator : numerator, denominator);
  return denominator === common
    ? `n${numerator / common}`
    : `n${numerator / common}/${denominator / common}`;
}

/** A scalar as SQL writes it, for `inspect --reads` and logs: `7`, `'open'`, `X'00FF'`. */
export function scalarText(scalar: Scalar): string {
  switch (scalar.kind) {
    case "text":
      return `'${scalar.value.replaceAll("'", "''")}'`;
    case "blob":
      return `X'${scalar.value}'`;
    case "decimal":
      return decimalText(scalar.digits, scalar.scale);
    default:
      return String(scalar.value);
  }
}

/** Strings in code-point order (UTF-8 byte order, which both databases compare in): not JavaScript's code-unit order. */
export function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let at = 0; at < length; at += 1) {
    const x = a.charCodeAt(at);
    const y = b.charCodeAt(at);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 code unit moved so that surrogates (astral code points) sort after U+E000..U+FFFF. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  return unit >= 0xd800 ? unit + 0x2000 : unit;
}

type NumericScalar = Extract<Scalar, { kind: "number" | "decimal" }>;

function compareNumbers(a: NumericScalar, b: NumericScalar): number {
  if (a.kind === "number" && b.kind === "number" && typeof a.value === typeof b.value)
    return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  const infinite = [a, b].find(
    (side) =>
      side.kind === "number" && typeof side.value === "number" && !Number.isFinite(side.value),
  );
  if (infinite) {
    const [x, y] = [approximate(a), approximate(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = rational(a);
  const y = rational(b);
  const difference = x.numerator * y.denominator - y.numerator * x.denominator;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/** Close enough to order a number against an infinity (and infinities against each other). */
function approximate(scalar: NumericScalar): number {
  return scalar.kind === "number"
    ? Number(scalar.value)
    : Number(scalar.digits) / 10 ** scalar.scale;
}

/** A finite number as an exact fraction (denominator positive): doubles are binary fractions. */
function rational(scalar: NumericScalar): { numerator: bigint; denominator: bigint } {
  if (scalar.kind === "decimal")
    return { numerator: scalar.digits, denominator: 10n ** BigInt(scalar.scale) };
  const { value } = scalar;
  if (typeof value === "bigint") return { numerator: value, denominator: 1n };
  let scaled = value;
  let exponent = 0;
  while (!Number.isInteger(scaled)) {
    scaled *= 2;
    exponent += 1;
  }
  return { numerator: BigInt(scaled), denominator: 2n ** BigInt(exponent) };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

/**
 * An exact decimal read from its text (`-12.50`, `.5`, `7`): digits and a scale, trailing zeros
 * dropped; undefined for anything else (an exponent, `NaN`, `Infinity`).
 */
export function decimalOf(text: string): Scalar | undefined {
  const parts = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!parts || (parts[2] === "" && !parts[3])) return undefined;
  const fraction = (parts[3] ?? "").replace(/0+$/, "");
  const digits = BigInt(`${parts[2] || "0"}${fraction}`);
  return { kind: "decimal", digits: parts[1] === "-" ? -digits : digits, scale: fraction.length };
}

function decimalText(digits: bigint, scale: number): string {
  const sign = digits < 0n ? "-" : "";
  const text = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, "0");
  return scale === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -scale)}.${text.slice(-scale)}`;
}
