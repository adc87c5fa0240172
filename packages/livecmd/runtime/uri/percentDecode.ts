import { CASE_BIT, DIGIT_ZERO, isDigit, LOWER_A, LOWER_F, PERCENT } from "./uriChars.ts";

/** Why a range could not be percent-decoded, phrased to follow a field name. */
export class DecodeFailure {
  constructor(
    readonly position: number,
    /** The offending text as written, e.g. `%4` or `%C3%28`. */
    readonly text: string,
    readonly reason: string,
  ) {}

  /** What is wrong with a value, as its field's message (`from: ${failure.describe()}`). */
  describe(): string {
    return `has ${JSON.stringify(this.text)} at position ${this.position}, ${this.reason}`;
  }
}

/**
 * Percent-decodes `s.slice(start, end)` as UTF-8, strictly: every `%` starts an escape of two
 * hex digits, and the escaped bytes must be well-formed UTF-8 (no overlongs, no encoded
 * surrogates, nothing above U+10FFFF). Characters that are not escapes are copied as they are.
 * `%2F` gives a `/` like any other escape.
 */
export function percentDecode(s: string, start: number, end: number): string | DecodeFailure {
  let out = "";
  let runStart = start;
  // Native `indexOf` skips the unescaped runs faster than a charCodeAt loop.
  for (let i = s.indexOf("%", start); i >= 0 && i < end; i = s.indexOf("%", runStart)) {
    if (i > runStart) out += s.slice(runStart, i);
    const lead = escapedByte(s, i, end);
    if (lead < 0) return malformedEscape(s, i, end);
    if (lead < 0x80) {
      out += String.fromCharCode(lead);
      runStart = i + 3;
    } else {
      const codePoint = decodeSequence(s, i, end, lead);
      if (typeof codePoint !== "number") return codePoint;
      out += fromCodePoint(codePoint);
      runStart = i + 3 * sequenceLength(lead);
    }
  }
  return runStart === start ? s.slice(start, end) : out + s.slice(runStart, end);
}

/** The byte of the `%XX` at `i`, or -1 when there is no well-formed escape there. */
function escapedByte(s: string, i: number, end: number): number {
  if (i + 3 > end || s.charCodeAt(i) !== PERCENT) return -1;
  const hi = hexValue(s.charCodeAt(i + 1));
  const lo = hexValue(s.charCodeAt(i + 2));
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}

function hexValue(c: number): number {
  if (isDigit(c)) return c - DIGIT_ZERO;
  const lower = c | CASE_BIT;
  if (lower >= LOWER_A && lower <= LOWER_F) return lower - LOWER_A + 10;
  return -1;
}

/** Bytes in the UTF-8 sequence that `lead` starts; 0 when `lead` cannot start one. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function decodeSequence(s: string, i: number, end: number, lead: number): number | DecodeFailure {
  const length = sequenceLength(lead);
  if (length === 0)
    return new DecodeFailure(i, s.slice(i, i + 3), notUtf8(invalidLeadReason(lead)));
  let codePoint = lead & (0x7f >> length);
  for (let k = 1; k < length; k++) {
    const at = i + 3 * k;
    const byte = escapedByte(s, at, end);
    if (byte < 0) {
      if (s.charCodeAt(at) === PERCENT) return malformedEscape(s, at, end);
      return new DecodeFailure(i, s.slice(i, at), notUtf8("an incomplete multi-byte sequence"));
    }
    const reason = continuationProblem(lead, k, byte);
    if (reason !== undefined) return new DecodeFailure(i, s.slice(i, at + 3), notUtf8(reason));
    codePoint = (codePoint << 6) | (byte & 0x3f);
  }
  return codePoint;
}

function invalidLeadReason(lead: number): string {
  if (lead < 0xc0) return "a continuation byte with no lead byte";
  if (lead < 0xc2) return "an overlong encoding";
  return "a byte that never occurs in UTF-8";
}

/**
 * The second byte's range is narrower after some lead bytes (RFC 3629 section 4): that is
 * what rules out overlongs, encoded surrogates and code points above U+10FFFF.
 */
function continuationProblem(lead: number, k: number, byte: number): string | undefined {
  if (byte < 0x80 || byte > 0xbf) return "an incomplete multi-byte sequence";
  if (k !== 1) return undefined;
  if ((lead === 0xe0 && byte < 0xa0) || (lead === 0xf0 && byte < 0x90))
    return "an overlong encoding";
  if (lead === 0xed && byte >= 0xa0) return "an encoded UTF-16 surrogate";
  if (lead === 0xf4 && byte >= 0x90) return "a code point above U+10FFFF";
  return undefined;
}

function notUtf8(reason: string): string {
  return `which is not valid UTF-8 (${reason})`;
}

function malformedEscape(s: string, i: number, end: number): DecodeFailure {
  return new DecodeFailure(
    i,
    s.slice(i, Math.min(i + 3, end)),
    `a malformed percent-escape: "%" must be followed by two hex digits (write a literal "%" as %25)`,
  );
}

function fromCodePoint(cp: number): string {
  if (cp < 0x10000) return String.fromCharCode(cp);
  return String.fromCharCode(0xd7c0 + (cp >> 10), 0xdc00 | (cp & 0x3ff));
}
