import assert from "node:assert/strict";
import { test } from "node:test";
import { templates } from "../../generated/templates.ts";

type Name = keyof typeof templates;

/** Each bad URI, and the fields its errors must name: every bad field, each once. */
const rejected: [rule: string, template: Name, uri: string, fields: string[]][] = [
  [
    "a typo'd parameter and a bad value are reported together",
    "customers_index",
    "app://customers_index?serch=ada&sort=nme",
    ["sort", "uri"],
  ],
  [
    "every bad value is reported, not just the first",
    "customers_index",
    "app://customers_index?page=1.0&per_page=x&direction=ASC",
    ["direction", "page", "per_page"],
  ],
  ["an integer in exponent form", "customers_show", "app://customers_show/1e3", ["id"]],
  ["an integer past 2^53", "customers_show", "app://customers_show/9007199254740993", ["id"]],
  ["an integer with a sign", "customers_show", "app://customers_show/+1", ["id"]],
  ["an integer with a leading zero", "customers_show", "app://customers_show/01", ["id"]],
  ["NaN as a number", "orders_over", "app://orders_over/NaN", ["min_total"]],
  ["Infinity as a number", "orders_over", "app://orders_over/Infinity", ["min_total"]],
  ["a number starting with a dot", "orders_over", "app://orders_over/.5", ["min_total"]],
  [
    "a boolean in capitals",
    "orders_flagged",
    "app://orders_flagged?include_archived=TRUE",
    ["include_archived"],
  ],
  [
    "a boolean as 1",
    "orders_flagged",
    "app://orders_flagged?include_archived=1",
    ["include_archived"],
  ],
  [
    "an enum constant in another case",
    "orders_between",
    "app://orders_between/a/b?status=Paid",
    ["status"],
  ],
  ["an empty required segment", "orders_between", "app://orders_between//2025-01-31", ["from"]],
  ["a missing segment", "orders_between", "app://orders_between/2025-01-01", ["uri"]],
  ["an extra segment", "customers_show", "app://customers_show/1/2", ["uri"]],
  ["a trailing slash", "customers_show", "app://customers_show/1/", ["uri"]],
  ["a repeated parameter", "customers_index", "app://customers_index?page=1&page=2", ["page"]],
  ["a parameter without =", "customers_index", "app://customers_index?search", ["search"]],
  ["a stray &", "customers_index", "app://customers_index?search=a&", ["uri"]],
  ["a fragment", "customers_show", "app://customers_show/1#top", ["uri"]],
  ["a malformed escape", "customers_index", "app://customers_index?search=%ZZ", ["search"]],
  ["a truncated escape", "customers_index", "app://customers_index?search=%4", ["search"]],
  ["invalid UTF-8", "customers_index", "app://customers_index?search=%C3%28", ["search"]],
  [
    "an encoded lone surrogate",
    "customers_index",
    "app://customers_index?search=%ED%A0%80",
    ["search"],
  ],
  ["a raw space", "customers_index", "app://customers_index?search=ada lovelace", ["uri"]],
  ["a raw non-ASCII character", "customers_index", "app://customers_index?search=café", ["uri"]],
  ["a mixed-case scheme", "customers_show", "APP://customers_show/1", ["uri"]],
  ["a query on a template without one", "customers_show", "app://customers_show/1?x=1", ["uri"]],
  [
    "a URI over 2 KiB",
    "customers_index",
    `app://customers_index?search=${"a".repeat(2100)}`,
    ["uri"],
  ],
];

for (const [rule, name, uri, fields] of rejected) {
  test(`parse rejects ${rule}`, () => {
    const result = templates[name].parse(uri);
    assert.equal(result.ok, false, `${uri} should be rejected`);
    if (result.ok) return;
    assert.deepEqual(
      result.errors.map((error) => error.field).sort(),
      fields,
      JSON.stringify(result.errors),
    );
    for (const error of result.errors) assert.ok(error.message.length > 10, error.message);
  });
}

/** Hostile-looking values that are valid data: they must come back exactly, never interpreted. */
const accepted: [rule: string, template: Name, uri: string, vars: Record<string, unknown>][] = [
  [
    "an encoded slash stays inside the value",
    "orders_between",
    "app://orders_between/a%2Fb/c%2F..%2F",
    { from: "a/b", to: "c/../" },
  ],
  [
    "encoded dots are data",
    "orders_between",
    "app://orders_between/%2E%2E/%2e",
    { from: "..", to: "." },
  ],
  [
    "%00 is a character",
    "customers_index",
    "app://customers_index?search=%00",
    { search: "\u0000" },
  ],
  [
    "SQL is a plain string",
    "customers_index",
    "app://customers_index?search=%27%3B%20DROP%20TABLE%20customers%3B--",
    { search: "'; DROP TABLE customers;--" },
  ],
  [
    "JSON is a plain string",
    "customers_index",
    "app://customers_index?search=%7B%22%24gt%22%3A%22%22%7D",
    { search: '{"$gt":""}' },
  ],
  ["+ is a literal plus", "customers_index", "app://customers_index?search=a+b", { search: "a+b" }],
  [
    "parameter order is free",
    "customers_index",
    "app://customers_index?sort=name&search=ada",
    { search: "ada", sort: "name" },
  ],
  [
    "an empty query value is the empty string",
    "customers_index",
    "app://customers_index?search=",
    { search: "" },
  ],
  ["-0 is an integer", "customers_show", "app://customers_show/-0", { id: -0 }],
  [
    "the largest safe integer",
    "customers_show",
    "app://customers_show/9007199254740991",
    { id: 9007199254740991 },
  ],
  ["an exponent is a number", "orders_over", "app://orders_over/1e3", { min_total: 1000 }],
];

for (const [rule, name, uri, vars] of accepted) {
  test(`parse accepts ${rule}`, () => {
    assert.deepEqual(templates[name].parse(uri), { ok: true, vars });
  });
}
