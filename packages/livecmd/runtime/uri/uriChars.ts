/*
 * The URI grammar's characters, once: their code units (compared in the hot loops, so plain
 * numbers, erasable TypeScript), and the class the splitter gives each ASCII code unit.
 */

export const SLASH = 0x2f;
export const QUESTION = 0x3f;
export const HASH = 0x23;
export const PERCENT = 0x25;
export const AMPERSAND = 0x26;
export const EQUALS = 0x3d;
export const COLON = 0x3a;
export const MINUS = 0x2d;
export const PLUS = 0x2b;
export const DOT = 0x2e;
export const DIGIT_ZERO = 0x30;
export const DIGIT_NINE = 0x39;
export const LOWER_A = 0x61;
export const LOWER_E = 0x65;
export const LOWER_F = 0x66;
export const LOWER_Z = 0x7a;
/** ASCII letters differ from their other case in this bit alone: `c | CASE_BIT` lowers a letter. */
export const CASE_BIT = 0x20;

/** What the splitter must do with an ASCII code unit. Everything at or above 0x80 must be encoded. */
export const CLASS_PLAIN = 0;
export const CLASS_MUST_ENCODE = 1;
export const CLASS_SLASH = 2;
export const CLASS_QUESTION = 3;
export const CLASS_HASH = 4;
export const CLASS_PERCENT = 5;
export const CLASS_AMPERSAND = 6;
export const CLASS_EQUALS = 7;

export const CHAR_CLASS: Uint8Array = buildCharClasses();

function buildCharClasses(): Uint8Array {
  const classes = new Uint8Array(128);
  // RFC 3986 has no place for these anywhere in a URI; the rest of ASCII is either
  // unreserved or a delimiter that is harmless inside a segment or a query value.
  for (let c = 0; c <= 0x20; c++) classes[c] = CLASS_MUST_ENCODE;
  for (const ch of '"<>\\^`{|}\x7f') classes[ch.charCodeAt(0)] = CLASS_MUST_ENCODE;
  classes[SLASH] = CLASS_SLASH;
  classes[QUESTION] = CLASS_QUESTION;
  classes[HASH] = CLASS_HASH;
  classes[PERCENT] = CLASS_PERCENT;
  classes[AMPERSAND] = CLASS_AMPERSAND;
  classes[EQUALS] = CLASS_EQUALS;
  return classes;
}

export function isDigit(c: number): boolean {
  return c >= DIGIT_ZERO && c <= DIGIT_NINE;
}
