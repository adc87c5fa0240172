import { CASE_BIT, DIGIT_ZERO, DOT, isDigit, LOWER_E, MINUS, PLUS } from "./uriChars.ts";

/*
 * The exact spellings the conversion table of docs/mcp.md ("Reading a URI back") accepts, checked by hand: `Number()` alone
 * would also take "", " 1", "+1", "0x10", ".5", "1." and "Infinity".
 */

/** Where the last `readInteger` stopped reading digits. Reused, as every read is synchronous. */
export const integerRead = { end: 0 };

/**
 * The one integer reader, for a value inside a URI and a whole string alike: reads
 * `-?(0|[1-9][0-9]*)` from `start` in one pass, summing as the digits go by, and returns its
 * value (`-0` for "-0"), or NaN when no integer is spelled there; `integerRead.end` is left
 * where the digits end. Summed by hand: `Number()` of a fresh string is a call into the
 * runtime that costs more than the rest of reading an integer. Past 2^53 the sum rounds, but
 * never below 2^53, so a range check on the result still rejects every integer out of range.
 */
export function readInteger(s: string, start: number): number {
  const negative = s.charCodeAt(start) === MINUS;
  const first = negative ? start + 1 : start;
  let value = 0;
  let i = first;
  for (; i < s.length; i++) {
    const digit = s.charCodeAt(i) - DIGIT_ZERO;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  integerRead.end = i;
  const spelled = i > first && (s.charCodeAt(first) !== DIGIT_ZERO || i === first + 1);
  if (!spelled) return NaN;
  return negative ? -value : value;
}

/** The value of `s` when all of it spells an integer (`readInteger`), else NaN. */
export function integerValue(s: string): number {
  const value = readInteger(s, 0);
  return integerRead.end === s.length ? value : NaN;
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
