import type { TemplateName } from "../../../generated/templates.ts";

/**
 * What a read of a URI must do:
 * - `invalid`: -32602 `Invalid URI`, `data.errors` naming exactly `fields` (`uri` for what
 *   belongs to no variable), each variable once; the command never runs.
 * - `notFound`: -32602 `Resource not found`, `data: { uri }`; the command never runs.
 * - `data`: the read succeeds and the handler receives exactly `args`: hostile-looking values
 *   are plain data.
 * - `handlerRefuses`: the URI is valid, the handler receives exactly `args` and refuses them
 *   itself (`InvalidArguments`: a rule the schema cannot state), which is -32602 with its
 *   `data.errors` naming exactly `fields`.
 * - `handlerFails`: the URI is valid, the handler receives exactly `args` and throws (a record
 *   that does not exist), which is -32603 with its message only.
 */
export type Outcome =
  | { kind: "invalid"; fields: string[] }
  | { kind: "notFound" }
  | { kind: "data"; args: unknown[] }
  | { kind: "handlerRefuses"; args: unknown[]; fields: string[] }
  | { kind: "handlerFails"; args: unknown[]; message: RegExp };

export interface HostileUri {
  rule: string;
  template: TemplateName;
  uri: string;
  outcome: Outcome;
}

const invalid = (...fields: string[]): Outcome => ({
  kind: "invalid",
  fields: [...new Set(fields)].sort(),
});
const notFound: Outcome = { kind: "notFound" };
const data = (...args: unknown[]): Outcome => ({ kind: "data", args });
const handlerRefuses = (fields: string[], ...args: unknown[]): Outcome => ({
  kind: "handlerRefuses",
  args,
  fields,
});
const handlerFails = (message: RegExp, ...args: unknown[]): Outcome => ({
  kind: "handlerFails",
  args,
  message,
});

/** `app://customers_index?search=<value, percent-encoded>` */
const search = (value: string) => `app://customers_index?search=${encodeURIComponent(value)}`;

/** A customers_index URI of exactly `bytes` bytes. */
function indexUriOfLength(bytes: number): string {
  const prefix = "app://customers_index?search=";
  return prefix + "a".repeat(bytes - prefix.length);
}

/** Strings that look like SQL, JSON or paths: each must reach the handler unchanged. */
export const INJECTIONS = [
  "'; DROP TABLE customers;--",
  "1' OR '1'='1",
  "%' OR 1=1 --",
  "Robert'); DROP TABLE orders; --",
  '" OR ""="',
  "1; DELETE FROM customers WHERE 1=1",
  "ada' UNION SELECT name, sql FROM sqlite_schema --",
  '{"$gt":""}',
  '{"__proto__":{"admin":true}}',
  '"},{"id":1,"name":"x',
  "[1,2,3]",
  "null",
  '\\u0000\\"',
  "../../etc/passwd",
  "%",
  "_",
  "\\",
  "a+b c&d=e#f?g/h",
  "<script>alert(1)</script>",
  "\u202Eevil\u202C", // right-to-left override
  "😀 café ñ 中文",
] as const;

export const HOSTILE_URIS: HostileUri[] = [
  // customers_show: one integer path variable
  {
    rule: "an integer in exponent form",
    template: "customers_show",
    uri: "app://customers_show/1e3",
    outcome: invalid("id"),
  },
  {
    rule: "an integer past 2^53",
    template: "customers_show",
    uri: "app://customers_show/9007199254740992",
    outcome: invalid("id"),
  },
  {
    rule: "an integer past -2^53",
    template: "customers_show",
    uri: "app://customers_show/-9007199254740992",
    outcome: invalid("id"),
  },
  {
    rule: "an integer with 23 digits",
    template: "customers_show",
    uri: "app://customers_show/99999999999999999999999",
    outcome: invalid("id"),
  },
  {
    rule: "NaN as an integer",
    template: "customers_show",
    uri: "app://customers_show/NaN",
    outcome: invalid("id"),
  },
  {
    rule: "Infinity as an integer",
    template: "customers_show",
    uri: "app://customers_show/Infinity",
    outcome: invalid("id"),
  },
  {
    rule: "a hexadecimal integer",
    template: "customers_show",
    uri: "app://customers_show/0x10",
    outcome: invalid("id"),
  },
  {
    rule: "an integer with a plus sign",
    template: "customers_show",
    uri: "app://customers_show/+1",
    outcome: invalid("id"),
  },
  {
    rule: "an integer with a leading zero",
    template: "customers_show",
    uri: "app://customers_show/01",
    outcome: invalid("id"),
  },
  {
    rule: "an integer written 1.0",
    template: "customers_show",
    uri: "app://customers_show/1.0",
    outcome: invalid("id"),
  },
  {
    rule: "a lone minus",
    template: "customers_show",
    uri: "app://customers_show/-",
    outcome: invalid("id"),
  },
  {
    rule: "an integer after an encoded space",
    template: "customers_show",
    uri: "app://customers_show/%201",
    outcome: invalid("id"),
  },
  {
    rule: "a fullwidth digit",
    template: "customers_show",
    uri: "app://customers_show/%EF%BC%91",
    outcome: invalid("id"),
  },
  {
    rule: "%00 as an integer",
    template: "customers_show",
    uri: "app://customers_show/%00",
    outcome: invalid("id"),
  },
  {
    rule: "%00 after an integer (no C-string truncation)",
    template: "customers_show",
    uri: "app://customers_show/1%00",
    outcome: invalid("id"),
  },
  {
    rule: "an encoded slash inside the segment",
    template: "customers_show",
    uri: "app://customers_show/1%2F2",
    outcome: invalid("id"),
  },
  {
    rule: "encoded dots as the segment",
    template: "customers_show",
    uri: "app://customers_show/%2E%2E",
    outcome: invalid("id"),
  },
  {
    rule: "literal dots as the segment (no path normalisation)",
    template: "customers_show",
    uri: "app://customers_show/..",
    outcome: invalid("id"),
  },
  {
    rule: "dot segments before the value",
    template: "customers_show",
    uri: "app://customers_show/../customers_show/1",
    outcome: invalid("uri"),
  },
  {
    rule: "an extra segment",
    template: "customers_show",
    uri: "app://customers_show/1/2",
    outcome: invalid("uri"),
  },
  {
    rule: "a trailing slash",
    template: "customers_show",
    uri: "app://customers_show/1/",
    outcome: invalid("uri"),
  },
  {
    rule: "a missing segment",
    template: "customers_show",
    uri: "app://customers_show",
    outcome: invalid("uri"),
  },
  {
    rule: "an empty required segment",
    template: "customers_show",
    uri: "app://customers_show/",
    outcome: invalid("id"),
  },
  {
    rule: "a doubled slash",
    template: "customers_show",
    uri: "app://customers_show//1",
    outcome: invalid("uri"),
  },
  {
    rule: "a query on a template without one",
    template: "customers_show",
    uri: "app://customers_show/1?id=2",
    outcome: invalid("uri"),
  },
  {
    rule: "a fragment",
    template: "customers_show",
    uri: "app://customers_show/1#top",
    outcome: invalid("uri"),
  },
  {
    rule: "an upper-case scheme",
    template: "customers_show",
    uri: "APP://customers_show/1",
    outcome: invalid("uri"),
  },
  {
    rule: "a mixed-case scheme and a bad value, reported together",
    template: "customers_show",
    uri: "aPp://customers_show/x",
    outcome: invalid("uri", "id"),
  },
  {
    rule: "a truncated escape",
    template: "customers_show",
    uri: "app://customers_show/%3",
    outcome: invalid("id"),
  },
  {
    rule: "a percent sign at the end",
    template: "customers_show",
    uri: "app://customers_show/1%",
    outcome: invalid("id"),
  },
  {
    rule: "an escape with a non-hex digit",
    template: "customers_show",
    uri: "app://customers_show/%G1",
    outcome: invalid("id"),
  },
  {
    rule: "raw CR LF (header injection)",
    template: "customers_show",
    uri: "app://customers_show/1\r\nX-Injected: 1",
    outcome: invalid("uri", "id"),
  },
  {
    rule: "a raw NUL",
    template: "customers_show",
    uri: "app://customers_show/1\u0000",
    outcome: invalid("uri", "id"),
  },
  {
    rule: "the command name in another case",
    template: "customers_show",
    uri: "app://Customers_Show/1",
    outcome: notFound,
  },
  {
    rule: "scheme and command in capitals",
    template: "customers_show",
    uri: "APP://CUSTOMERS_SHOW/1",
    outcome: notFound,
  },
  {
    rule: "an encoded slash after the command name",
    template: "customers_show",
    uri: "app://customers_show%2F1",
    outcome: notFound,
  },
  {
    rule: "a scheme without //",
    template: "customers_show",
    uri: "app:customers_show/1",
    outcome: notFound,
  },
  {
    rule: "a third slash before the command",
    template: "customers_show",
    uri: "app:///customers_show/1",
    outcome: notFound,
  },
  {
    rule: "a leading space",
    template: "customers_show",
    uri: " app://customers_show/1",
    outcome: notFound,
  },
  {
    rule: "a NUL inside the command name",
    template: "customers_show",
    uri: "app://customers_show\u0000/1",
    outcome: notFound,
  },

  // customers_index: query variables direction (enum), page, per_page (integer), search (string), sort (enum)
  {
    rule: "an unknown parameter",
    template: "customers_index",
    uri: "app://customers_index?serch=ada",
    outcome: invalid("uri"),
  },
  {
    rule: "a repeated parameter",
    template: "customers_index",
    uri: "app://customers_index?page=1&page=2",
    outcome: invalid("page"),
  },
  {
    rule: "a string parameter without =",
    template: "customers_index",
    uri: "app://customers_index?search",
    outcome: invalid("search"),
  },
  {
    rule: "an integer parameter without =",
    template: "customers_index",
    uri: "app://customers_index?page&search=a",
    outcome: invalid("page"),
  },
  {
    rule: "a parameter with an empty name",
    template: "customers_index",
    uri: "app://customers_index?=1",
    outcome: invalid("uri"),
  },
  {
    rule: "a stray & at the end",
    template: "customers_index",
    uri: "app://customers_index?search=a&",
    outcome: invalid("uri"),
  },
  {
    rule: "a stray & at the start",
    template: "customers_index",
    uri: "app://customers_index?&search=a",
    outcome: invalid("uri"),
  },
  {
    rule: "a doubled ?",
    template: "customers_index",
    uri: "app://customers_index??search=a",
    outcome: invalid("uri"),
  },
  {
    rule: "__proto__ as a parameter",
    template: "customers_index",
    uri: "app://customers_index?__proto__=1",
    outcome: invalid("uri"),
  },
  {
    rule: "constructor as a parameter",
    template: "customers_index",
    uri: "app://customers_index?constructor=x&search=a",
    outcome: invalid("uri"),
  },
  {
    rule: "a parameter name in capitals",
    template: "customers_index",
    uri: "app://customers_index?SEARCH=a",
    outcome: invalid("uri"),
  },
  {
    rule: "an encoded = inside the name",
    template: "customers_index",
    uri: "app://customers_index?search%3Dada",
    outcome: invalid("uri"),
  },
  {
    rule: "1e3 as an integer parameter",
    template: "customers_index",
    uri: "app://customers_index?page=1e3",
    outcome: invalid("page"),
  },
  {
    rule: "1E3 as an integer parameter",
    template: "customers_index",
    uri: "app://customers_index?per_page=1E3",
    outcome: invalid("per_page"),
  },
  {
    rule: "NaN as an integer parameter",
    template: "customers_index",
    uri: "app://customers_index?page=NaN",
    outcome: invalid("page"),
  },
  {
    rule: "an empty integer parameter",
    template: "customers_index",
    uri: "app://customers_index?per_page=",
    outcome: invalid("per_page"),
  },
  {
    rule: "an integer parameter past 2^53",
    template: "customers_index",
    uri: "app://customers_index?page=9007199254740993",
    outcome: invalid("page"),
  },
  {
    rule: "an enum constant in capitals",
    template: "customers_index",
    uri: "app://customers_index?direction=ASC",
    outcome: invalid("direction"),
  },
  {
    rule: "an enum constant capitalised",
    template: "customers_index",
    uri: "app://customers_index?sort=Name",
    outcome: invalid("sort"),
  },
  {
    rule: "an enum constant with an encoded trailing space",
    template: "customers_index",
    uri: "app://customers_index?direction=asc%20",
    outcome: invalid("direction"),
  },
  {
    rule: "an enum constant followed by %00",
    template: "customers_index",
    uri: "app://customers_index?sort=name%00",
    outcome: invalid("sort"),
  },
  {
    rule: "every bad field at once",
    template: "customers_index",
    uri: "app://customers_index?serch=a&direction=up&page=1.5&per_page=x&sort=NAME",
    outcome: invalid("uri", "direction", "page", "per_page", "sort"),
  },
  {
    rule: "a malformed escape",
    template: "customers_index",
    uri: "app://customers_index?search=%ZZ",
    outcome: invalid("search"),
  },
  {
    rule: "a truncated escape",
    template: "customers_index",
    uri: "app://customers_index?search=%4",
    outcome: invalid("search"),
  },
  {
    rule: "a lone %",
    template: "customers_index",
    uri: "app://customers_index?search=%",
    outcome: invalid("search"),
  },
  {
    rule: "a malformed escape in a name",
    template: "customers_index",
    uri: "app://customers_index?se%ZZrch=a",
    outcome: invalid("uri"),
  },
  {
    rule: "invalid UTF-8 (a bad continuation)",
    template: "customers_index",
    uri: "app://customers_index?search=%C3%28",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (0xFF)",
    template: "customers_index",
    uri: "app://customers_index?search=%FF",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (a lone continuation byte)",
    template: "customers_index",
    uri: "app://customers_index?search=%80",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (an overlong slash, %C0%AF)",
    template: "customers_index",
    uri: "app://customers_index?search=%C0%AF",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (a three-byte overlong)",
    template: "customers_index",
    uri: "app://customers_index?search=%E0%80%AF",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (an encoded surrogate)",
    template: "customers_index",
    uri: "app://customers_index?search=%ED%A0%80",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (above U+10FFFF)",
    template: "customers_index",
    uri: "app://customers_index?search=%F4%90%80%80",
    outcome: invalid("search"),
  },
  {
    rule: "invalid UTF-8 (a truncated sequence)",
    template: "customers_index",
    uri: "app://customers_index?search=%E2%82",
    outcome: invalid("search"),
  },
  {
    rule: "a raw space",
    template: "customers_index",
    uri: "app://customers_index?search=ada lovelace",
    outcome: invalid("uri"),
  },
  {
    rule: "a raw non-ASCII character",
    template: "customers_index",
    uri: "app://customers_index?search=café",
    outcome: invalid("uri"),
  },
  {
    rule: "a raw emoji",
    template: "customers_index",
    uri: "app://customers_index?search=😀",
    outcome: invalid("uri"),
  },
  {
    rule: "a raw unpaired surrogate",
    template: "customers_index",
    uri: "app://customers_index?search=\uD800x",
    outcome: invalid("uri"),
  },
  {
    rule: "raw HTML",
    template: "customers_index",
    uri: 'app://customers_index?search=<script>"x"</script>',
    outcome: invalid("uri"),
  },
  {
    rule: "a fragment after the query",
    template: "customers_index",
    uri: "app://customers_index?search=a#b",
    outcome: invalid("uri"),
  },
  {
    rule: "a path on a template without one",
    template: "customers_index",
    uri: "app://customers_index/1",
    outcome: invalid("uri"),
  },
  {
    rule: "an upper-case scheme",
    template: "customers_index",
    uri: "APP://customers_index?search=a",
    outcome: invalid("uri"),
  },
  {
    rule: "a URI over 2 KiB",
    template: "customers_index",
    uri: `app://customers_index?search=${"a".repeat(2100)}`,
    outcome: invalid("uri"),
  },
  {
    rule: "a URI of 2049 bytes",
    template: "customers_index",
    uri: indexUriOfLength(2049),
    outcome: invalid("uri"),
  },
  {
    rule: "a URI over 2 KiB only as UTF-8",
    template: "customers_index",
    uri: `app://customers_index?search=${"é".repeat(1100)}`,
    outcome: invalid("uri"),
  },
  {
    rule: "a URI over 2 KiB of escapes",
    template: "customers_index",
    uri: `app://customers_index?search=${"%C3%A9".repeat(400)}`,
    outcome: invalid("uri"),
  },
  {
    rule: "a 100 KiB URI",
    template: "customers_index",
    uri: `app://customers_index?search=${"%00".repeat(34_000)}`,
    outcome: invalid("uri"),
  },
  {
    rule: "a URI of exactly 2048 bytes is accepted",
    template: "customers_index",
    uri: indexUriOfLength(2048),
    outcome: data({ search: "a".repeat(2048 - "app://customers_index?search=".length) }),
  },
  {
    rule: "%00 is a character of a string",
    template: "customers_index",
    uri: "app://customers_index?search=%00",
    outcome: data({ search: "\u0000" }),
  },
  {
    rule: "%00 inside a string does not end it",
    template: "customers_index",
    uri: "app://customers_index?search=Ada%00zzz",
    outcome: data({ search: "Ada\u0000zzz" }),
  },
  {
    rule: "an encoded parameter name is its decoded name",
    template: "customers_index",
    uri: "app://customers_index?se%61rch=ada",
    outcome: data({ search: "ada" }),
  },
  {
    rule: "an encoded enum constant is the constant",
    template: "customers_index",
    uri: "app://customers_index?sort=created%5Fat",
    outcome: data({ sort: "created_at" }),
  },
  {
    rule: "a page of 0 is below the published minimum",
    template: "customers_index",
    uri: "app://customers_index?page=0",
    outcome: invalid("page"),
  },
  {
    rule: "a customer that does not exist is a failure of the command, not an invalid argument",
    template: "customers_show",
    uri: "app://customers_show/99999",
    outcome: handlerFails(/^no customer with id 99999$/, 99999),
  },
  {
    rule: "to before from reaches the handler, which refuses it by field",
    template: "orders_between",
    uri: "app://orders_between/2025-02-01/2025-01-01",
    outcome: handlerRefuses(["to"], "2025-02-01", "2025-01-01", undefined),
  },
  ...INJECTIONS.map((value): HostileUri => ({
    rule: `${JSON.stringify(value)} is plain data`,
    template: "customers_index",
    uri: search(value),
    outcome: data({ search: value }),
  })),

  // orders_between: path variables from and to (strings), query variable status (enum)
  {
    rule: "an empty first segment",
    template: "orders_between",
    uri: "app://orders_between//2025-01-31",
    outcome: invalid("from"),
  },
  {
    rule: "an empty last segment",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/",
    outcome: invalid("to"),
  },
  {
    rule: "both segments empty",
    template: "orders_between",
    uri: "app://orders_between//",
    outcome: invalid("from", "to"),
  },
  {
    rule: "a missing segment",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01",
    outcome: invalid("uri"),
  },
  {
    rule: "no segments",
    template: "orders_between",
    uri: "app://orders_between?status=paid",
    outcome: invalid("uri"),
  },
  {
    rule: "an extra segment",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31/x",
    outcome: invalid("uri"),
  },
  {
    rule: "a status capitalised",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31?status=Paid",
    outcome: invalid("status"),
  },
  {
    rule: "a status in capitals",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31?status=PAID",
    outcome: invalid("status"),
  },
  {
    rule: "an empty status",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31?status=",
    outcome: invalid("status"),
  },
  {
    rule: "a status without =",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31?status",
    outcome: invalid("status"),
  },
  {
    rule: "a repeated status",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31?status=paid&status=paid",
    outcome: invalid("status"),
  },
  {
    rule: "a path variable given as a parameter",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31?from=2024-01-01",
    outcome: invalid("uri"),
  },
  {
    rule: "bad escapes in both segments",
    template: "orders_between",
    uri: "app://orders_between/%ZZ/%C3%28",
    outcome: invalid("from", "to"),
  },
  {
    rule: "a fragment",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31#x",
    outcome: invalid("uri"),
  },
  {
    rule: "a mixed-case scheme",
    template: "orders_between",
    uri: "App://orders_between/2025-01-01/2025-01-31",
    outcome: invalid("uri"),
  },
  {
    rule: "encoded hyphens are the hyphens",
    template: "orders_between",
    uri: "app://orders_between/2025%2D01%2D01/2025-01-31?status=paid",
    outcome: data("2025-01-01", "2025-01-31", "paid"),
  },
  {
    rule: "an encoded slash stays in its segment (and that segment is no date)",
    template: "orders_between",
    uri: "app://orders_between/2025%2F01%2F01/2025-01-31",
    outcome: invalid("from"),
  },
  {
    rule: "encoded dots stay data (no dates, refused by format)",
    template: "orders_between",
    uri: "app://orders_between/%2E%2E/%2E",
    outcome: invalid("from", "to"),
  },
  {
    rule: "%00 is a character of a path string",
    template: "orders_between",
    uri: "app://orders_between/%00/2025-01-31",
    outcome: invalid("from"),
  },
  {
    rule: "a date followed by %00 is not that date",
    template: "orders_between",
    uri: "app://orders_between/2025-01-01/2025-01-31%00",
    outcome: invalid("to"),
  },
  {
    rule: "SQL in a path string is no date: refused by its format before any SQL runs",
    template: "orders_between",
    uri: `app://orders_between/${encodeURIComponent("2025-01-01' OR '1'='1")}/2025-01-31`,
    outcome: invalid("from"),
  },

  // orders_over: path variable min_total (number), query variable status (enum)
  {
    rule: "NaN as a number",
    template: "orders_over",
    uri: "app://orders_over/NaN",
    outcome: invalid("min_total"),
  },
  {
    rule: "Infinity as a number",
    template: "orders_over",
    uri: "app://orders_over/Infinity",
    outcome: invalid("min_total"),
  },
  {
    rule: "-Infinity as a number",
    template: "orders_over",
    uri: "app://orders_over/-Infinity",
    outcome: invalid("min_total"),
  },
  {
    rule: "a number past the largest double",
    template: "orders_over",
    uri: "app://orders_over/1e400",
    outcome: invalid("min_total"),
  },
  {
    rule: "a number starting with a dot",
    template: "orders_over",
    uri: "app://orders_over/.5",
    outcome: invalid("min_total"),
  },
  {
    rule: "a number ending with a dot",
    template: "orders_over",
    uri: "app://orders_over/5.",
    outcome: invalid("min_total"),
  },
  {
    rule: "a number with a decimal comma",
    template: "orders_over",
    uri: "app://orders_over/1,5",
    outcome: invalid("min_total"),
  },
  {
    rule: "a number with digit separators",
    template: "orders_over",
    uri: "app://orders_over/1_000",
    outcome: invalid("min_total"),
  },
  {
    rule: "a hexadecimal number",
    template: "orders_over",
    uri: "app://orders_over/0x10",
    outcome: invalid("min_total"),
  },
  {
    rule: "%00 as a number",
    template: "orders_over",
    uri: "app://orders_over/%00",
    outcome: invalid("min_total"),
  },
  {
    rule: "an empty number segment",
    template: "orders_over",
    uri: "app://orders_over/",
    outcome: invalid("min_total"),
  },
  {
    rule: "a bad number and a bad status together",
    template: "orders_over",
    uri: "app://orders_over/NaN?status=Shipped",
    outcome: invalid("min_total", "status"),
  },
  {
    rule: "an extra segment",
    template: "orders_over",
    uri: "app://orders_over/1/2",
    outcome: invalid("uri"),
  },
  {
    rule: "a missing segment",
    template: "orders_over",
    uri: "app://orders_over",
    outcome: invalid("uri"),
  },
  {
    rule: "a fragment",
    template: "orders_over",
    uri: "app://orders_over/1#x",
    outcome: invalid("uri"),
  },
  {
    rule: "1e3 is a number",
    template: "orders_over",
    uri: "app://orders_over/1e3?status=paid",
    outcome: data(1000, "paid"),
  },
  {
    rule: "-0 is a number",
    template: "orders_over",
    uri: "app://orders_over/-0",
    outcome: data(-0, undefined),
  },
  {
    rule: "a number past 2^53 is a (rounded) number",
    template: "orders_over",
    uri: "app://orders_over/9007199254740993",
    outcome: data(9007199254740992, undefined),
  },
  {
    rule: "a number that underflows is 0, as in JSON",
    template: "orders_over",
    uri: "app://orders_over/1e-400",
    outcome: data(0, undefined),
  },

  // orders_flagged: query variable include_archived (boolean)
  {
    rule: "a boolean in capitals",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=TRUE",
    outcome: invalid("include_archived"),
  },
  {
    rule: "a boolean capitalised",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=True",
    outcome: invalid("include_archived"),
  },
  {
    rule: "a boolean as 1",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=1",
    outcome: invalid("include_archived"),
  },
  {
    rule: "a boolean as yes",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=yes",
    outcome: invalid("include_archived"),
  },
  {
    rule: "an empty boolean",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=",
    outcome: invalid("include_archived"),
  },
  {
    rule: "a boolean followed by %00",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=true%00",
    outcome: invalid("include_archived"),
  },
  {
    rule: "a boolean without =",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived",
    outcome: invalid("include_archived"),
  },
  {
    rule: "a repeated boolean",
    template: "orders_flagged",
    uri: "app://orders_flagged?include_archived=true&include_archived=false",
    outcome: invalid("include_archived"),
  },
  {
    rule: "an unknown parameter",
    template: "orders_flagged",
    uri: "app://orders_flagged?archived=true",
    outcome: invalid("uri"),
  },
  {
    rule: "a path on a template without one",
    template: "orders_flagged",
    uri: "app://orders_flagged/true",
    outcome: invalid("uri"),
  },
  {
    rule: "a fragment",
    template: "orders_flagged",
    uri: "app://orders_flagged#x",
    outcome: invalid("uri"),
  },
  {
    rule: "a mixed-case scheme",
    template: "orders_flagged",
    uri: "aPP://orders_flagged?include_archived=false",
    outcome: invalid("uri"),
  },
  {
    rule: "an encoded parameter name is its decoded name",
    template: "orders_flagged",
    uri: "app://orders_flagged?include%5Farchived=true",
    outcome: data(true),
  },
  {
    rule: "the plain resource leaves the variable out",
    template: "orders_flagged",
    uri: "app://orders_flagged",
    outcome: data(undefined),
  },
];
