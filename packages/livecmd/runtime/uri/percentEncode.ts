import { isSurrogatePairAt } from "./utf16.ts";

/** `%XX` for every byte value, uppercase as RFC 3986 recommends. */
const BYTE_ESCAPES: readonly string[] = Array.from(
  { length: 256 },
  (_, byte) => "%" + byte.toString(16).toUpperCase().padStart(2, "0"),
);

/**
 * 1 for the RFC 3986 unreserved characters `A-Z a-z 0-9 - . _ ~`, the only ones left as is.
 * Every UTF-16 code unit has an entry, so the hot loop needs no range check.
 */
const UNRESERVED: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") {
    table[ch.charCodeAt(0)] = 1;
  }
  return table;
})();

/** An unpaired surrogate has no UTF-8 form; it becomes U+FFFD, as the WHATWG URL standard does. */
const REPLACEMENT_ESCAPES = "%EF%BF%BD";

/**
 * RFC 6570 simple string expansion of one value: every UTF-8 byte except unreserved ones
 * becomes `%XX`.
 */
export function percentEncode(s: string): string {
  const n = s.length;
  let i = 0;
  while (i < n && isUnreserved(s.charCodeAt(i))) i++;
  if (i === n) return s;

  let out = s.slice(0, i);
  while (i < n) {
    const runStart = i;
    while (i < n && isUnreserved(s.charCodeAt(i))) i++;
    if (i > runStart) out += s.slice(runStart, i);
    if (i === n) break;
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) {
      out += encodeCodePoint(c);
      i += 1;
    } else if (isSurrogatePairAt(s, i)) {
      out += encodeCodePoint(s.codePointAt(i)!);
      i += 2;
    } else {
      out += REPLACEMENT_ESCAPES;
      i += 1;
    }
  }
  return out;
}

function isUnreserved(c: number): boolean {
  return UNRESERVED[c] === 1;
}

function encodeCodePoint(cp: number): string {
  const e = BYTE_ESCAPES;
  if (cp < 0x80) return e[cp]!;
  if (cp < 0x800) return e[0xc0 | (cp >> 6)]! + e[0x80 | (cp & 0x3f)]!;
  if (cp < 0x10000) {
    return e[0xe0 | (cp >> 12)]! + e[0x80 | ((cp >> 6) & 0x3f)]! + e[0x80 | (cp & 0x3f)]!;
  }
  return (
    e[0xf0 | (cp >> 18)]! +
    e[0x80 | ((cp >> 12) & 0x3f)]! +
    e[0x80 | ((cp >> 6) & 0x3f)]! +
    e[0x80 | (cp & 0x3f)]!
  );
}
