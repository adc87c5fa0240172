import { CASE_BIT, DIGIT_ZERO, DOT, isDigit, LOWER_E, MINUS, PLUS } from "./uriChars.ts";

/*
 * The exact spellings design.md's conversion table accepts, checked by hand: `Number()` alone
 * would also take "", " 1", "+1", "0x10", ".5", "1." and "Infinity".
 */

/**
 * The value of `-?(0|[1-9][0-9]*)` spelled exactly from `start` to `end`, or NaN when it is not
 * spelled so; `-0` gives -0. The one integer reader, for a whole string and for a value inside
 * a URI alike. Summed by hand: `Number()` of a fresh string is a call into the runtime that
 * costs more than the rest of reading an integer. Past 2^53 the sum rounds, but never below
 * 2^53, so a range check on the result still rejects every integer out of range.
 */
export function integerValue(s: string, start = 0, end = s.length): number {
  const negative = s.charCodeAt(start) === MINUS;
  const first = negative ? start + 1 : start;
  if (integerPartEnd(s, first) !== end) return NaN;
  let value = 0;
  for (let i = first; i < end; i++) value = value * 10 + (s.charCodeAt(i) - DIGIT_ZERO);
  return negative ? -value : value;
}

/** Where the integer spelled at `start` (`-?(0|[1-9][0-9]*)`) ends; -1 when none is. */
export function integerEnd(s: string, start: number): number {
  return integerPartEnd(s, s.charCodeAt(start) === MINUS ? start + 1 : start);
}

/** The JSON number grammar (RFC 8259 section 6): `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` */
export function isJsonNumberSyntax(s: string): boolean {
  let i = integerPartEnd(s, s.charCodeAt(0) === MINUS ? 1 : 0);
  if (i < 0) return false;
  if (s.charCodeAt(i) === DOT) {
    i = digitsEnd(s, i + 1);
    if (i < 0) return false;
  }
  if ((s.charCodeAt(i) | CASE_BIT) === LOWER_E) {
    i++;
    const sign = s.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    i = digitsEnd(s, i);
    if (i < 0) return false;
  }
  return i === s.length;
}

/** After `0` or a digit run without a leading zero starting at `i`; -1 if there is none. */
function integerPartEnd(s: string, i: number): number {
  if (s.charCodeAt(i) === DIGIT_ZERO) return i + 1;
  return digitsEnd(s, i);
}

/** After one or more digits starting at `i`; -1 if there is no digit there. */
function digitsEnd(s: string, i: number): number {
  let j = i;
  while (isDigit(s.charCodeAt(j))) j++;
  return j === i ? -1 : j;
}
