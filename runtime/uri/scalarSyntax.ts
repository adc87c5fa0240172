/*
 * The exact spellings design.md's conversion table accepts, checked by hand: `Number()` alone
 * would also take "", " 1", "+1", "0x10", ".5", "1." and "Infinity".
 */

/**
 * The value of `-?(0|[1-9][0-9]*)`, or NaN when `s` is not spelled so; `-0` gives -0. Read in
 * the same pass as the check: `Number()` of a fresh string is a call into the runtime that
 * costs more than the rest of reading an integer. Past 2^53 the sum rounds, but never below
 * 2^53, so a range check on the result still rejects every integer out of range.
 */
export function integerValue(s: string): number {
  const negative = s.charCodeAt(0) === MINUS;
  const start = negative ? 1 : 0;
  if (integerPartEnd(s, start) !== s.length) return NaN;
  let value = 0;
  for (let i = start; i < s.length; i++) value = value * 10 + (s.charCodeAt(i) - ZERO);
  return negative ? -value : value;
}

/** The JSON number grammar (RFC 8259 section 6): `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` */
export function isJsonNumberSyntax(s: string): boolean {
  let i = integerPartEnd(s, s.charCodeAt(0) === MINUS ? 1 : 0);
  if (i < 0) return false;
  if (s.charCodeAt(i) === DOT) {
    i = digitsEnd(s, i + 1);
    if (i < 0) return false;
  }
  if ((s.charCodeAt(i) | 0x20) === LOWER_E) {
    i++;
    const sign = s.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    i = digitsEnd(s, i);
    if (i < 0) return false;
  }
  return i === s.length;
}

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const LOWER_E = 0x65;
const ZERO = 0x30;

/** After `0` or a digit run without a leading zero starting at `i`; -1 if there is none. */
function integerPartEnd(s: string, i: number): number {
  if (s.charCodeAt(i) === ZERO) return i + 1;
  return digitsEnd(s, i);
}

/** After one or more digits starting at `i`; -1 if there is no digit there. */
function digitsEnd(s: string, i: number): number {
  let j = i;
  while (isDigit(s.charCodeAt(j))) j++;
  return j === i ? -1 : j;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= 0x39;
}
