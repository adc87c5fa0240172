import { commandEnd } from "./matchBase.ts";

/**
 * The command name in `scheme://name...` (up to `/`, `?`, `#` or the end), or `undefined`
 * when `uri` is not of this scheme. The scheme matches in any letter case, so that a URI
 * written `APP://...` reaches its template's parser and gets a precise error rather than
 * "resource not found".
 */
export function commandOf(uri: string, scheme: string): string | undefined {
  const n = scheme.length;
  if (
    uri.charCodeAt(n) !== 0x3a ||
    uri.charCodeAt(n + 1) !== 0x2f ||
    uri.charCodeAt(n + 2) !== 0x2f
  ) {
    return undefined;
  }
  for (let i = 0; i < n; i++) {
    if (!sameLetterIgnoringCase(uri.charCodeAt(i), scheme.charCodeAt(i))) return undefined;
  }
  return uri.slice(n + 3, commandEnd(uri, n + 3));
}

/** ASCII-only case folding: schemes are ASCII (RFC 3986 section 3.1). */
function sameLetterIgnoringCase(a: number, b: number): boolean {
  if (a === b) return true;
  const lower = a | 0x20;
  return lower === (b | 0x20) && lower >= 0x61 && lower <= 0x7a;
}
