import { commandEnd } from "./matchBase.ts";
import { CASE_BIT, COLON, LOWER_A, LOWER_Z, SLASH } from "./uriChars.ts";

/**
 * The command name in `scheme://name...` (up to `/`, `?`, `#` or the end), or `undefined`
 * when `uri` is not of this scheme. The scheme matches in any letter case, so that a URI
 * written `APP://...` reaches its template's parser and gets a precise error rather than
 * "resource not found".
 */
export function commandOf(uri: string, scheme: string): string | undefined {
  const n = scheme.length;
  if (
    uri.charCodeAt(n) !== COLON ||
    uri.charCodeAt(n + 1) !== SLASH ||
    uri.charCodeAt(n + 2) !== SLASH
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
  const lower = a | CASE_BIT;
  return lower === (b | CASE_BIT) && lower >= LOWER_A && lower <= LOWER_Z;
}
