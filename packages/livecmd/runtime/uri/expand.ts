import { percentEncode } from "./percentEncode.ts";

export type ScalarValue = string | number | boolean;

/**
 * RFC 6570 simple string expansion, `{var}`, of one path variable: every UTF-8 byte but the
 * unreserved characters is percent-encoded, so `/`, `?` and `#` stay inside the segment.
 */
export function pathSegment(value: ScalarValue): string {
  return percentEncode(formatScalar(value));
}

/**
 * RFC 6570 form-style query expansion, `{?a,b}`: `?a=1&b=x` over the defined values in the
 * given order; `""` gives `name=`; `""` overall when nothing is defined. Names are written as
 * they are: they are template variable names, which RFC 6570 allows only in URI-safe spelling.
 * Generated builders do the same with one line per variable.
 */
export function formQuery(
  pairs: readonly (readonly [name: string, value: ScalarValue | null | undefined])[],
): string {
  let query = "";
  for (let i = 0; i < pairs.length; i++) {
    const [name, value] = pairs[i]!;
    if (value !== undefined && value !== null)
      query += `${query && "&"}${name}=${pathSegment(value)}`;
  }
  return query && `?${query}`;
}

/**
 * The text that reads back as the same value: `String()`, except that -0 keeps its sign
 * (`String(-0)` is "0"). Non-finite numbers come out as "NaN" or "Infinity", which the
 * reader then rejects with a precise error rather than the builder throwing.
 */
export function formatScalar(value: ScalarValue): string {
  if (typeof value === "string") return value;
  if (value === 0 && 1 / value < 0) return "-0";
  return String(value);
}
