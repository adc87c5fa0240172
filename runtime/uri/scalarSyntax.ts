/*
 * The exact spellings design.md's conversion table accepts, checked by hand: `Number()` alone
 * would also take "", " 1", "+1", "0x10", ".5", "1." and "Infinity".
 */

/** `-?(0|[1-9][0-9]*)` */
export function isIntegerSyntax(s: string): boolean {
  return integerPartEnd(s, s.charCodeAt(0) === MINUS ? 1 : 0) === s.length;
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
