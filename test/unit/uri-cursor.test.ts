import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { GenericMatcher } from "../helpers/genericMatcher.ts";
import { templates, type TemplateName } from "../../generated/templates.ts";
import { isPlainConstant, UriCursor } from "../../packages/livecmd/runtime/uri/uriCursor.ts";
import {
  arbitraryUri,
  mutatedUri,
  TEMPLATE_NAMES,
  validUri,
} from "../reliability/support/arbitraries.ts";

/**
 * The generated parsers read a URI in `uris.*`'s own form with `UriCursor` and anything else
 * strictly. The strict-only reference is the generic matcher: the same splitter and readers,
 * no cursor. Whatever the cursor does, each parser must answer exactly as the reference does.
 */
const strict = Object.fromEntries(
  TEMPLATE_NAMES.map((name) => [
    name,
    new GenericMatcher(templates[name].uriTemplate, templates[name].variables),
  ]),
) as Record<TemplateName, GenericMatcher>;

function assertSameAsStrict(name: TemplateName, uri: string): void {
  assert.deepStrictEqual(templates[name].parse(uri), strict[name].parse(uri), uri);
}

/** Reads `uri` the way the generated customers_index parser does; undefined when the cursor declines. */
function readIndex(uri: string): Record<string, unknown> | undefined {
  const cursor = new UriCursor();
  if (!cursor.start(uri, "app://customers_index")) return undefined;
  const vars: Record<string, unknown> = {};
  if (cursor.param("direction")) vars.direction = cursor.oneOf(["asc", "desc"]);
  if (cursor.param("page")) vars.page = cursor.integer();
  if (cursor.param("per_page")) vars.per_page = cursor.integer();
  if (cursor.param("search")) vars.search = cursor.string();
  if (cursor.param("sort")) vars.sort = cursor.oneOf(["name", "created_at", "balance"]);
  return cursor.end() ? vars : undefined;
}

/** The same for orders_over: a number segment, then an optional enum. */
function readOver(uri: string): Record<string, unknown> | undefined {
  const cursor = new UriCursor();
  if (!cursor.start(uri, "app://orders_over")) return undefined;
  const vars: Record<string, unknown> = {};
  if (cursor.segment()) vars.min_total = cursor.number();
  if (cursor.param("status"))
    vars.status = cursor.oneOf(["pending", "paid", "shipped", "cancelled"]);
  return cursor.end() ? vars : undefined;
}

describe("UriCursor reads the form uris.* writes", () => {
  const read: [rule: string, uri: string, vars: Record<string, unknown>][] = [
    ["no query at all", "app://customers_index", {}],
    [
      "every parameter, in template order",
      "app://customers_index?direction=desc&page=2&per_page=50&search=ada&sort=created_at",
      { direction: "desc", page: 2, per_page: 50, search: "ada", sort: "created_at" },
    ],
    [
      "some parameters left out",
      "app://customers_index?page=3&sort=name",
      { page: 3, sort: "name" },
    ],
    [
      "an escaped string value, decoded",
      "app://customers_index?search=M%C3%BCller%20%26%20Sons",
      { search: "Müller & Sons" },
    ],
    ["an empty string value", "app://customers_index?search=", { search: "" }],
    ["-0 as an integer", "app://customers_index?page=-0", { page: -0 }],
    [
      "the largest safe integer",
      "app://customers_index?page=9007199254740991",
      { page: 9007199254740991 },
    ],
    ["a negative integer", "app://customers_index?page=-12", { page: -12 }],
  ];
  for (const [rule, uri, vars] of read) {
    it(rule, () => {
      assert.deepStrictEqual(readIndex(uri), vars);
      assertSameAsStrict("customers_index", uri);
    });
  }

  const numbers: [rule: string, uri: string, vars: Record<string, unknown>][] = [
    ["a number in exponent form", "app://orders_over/1.5e3", { min_total: 1500 }],
    ["a number and an enum", "app://orders_over/10?status=paid", { min_total: 10, status: "paid" }],
    [
      "an escaped digit, decoded as the strict path does",
      "app://orders_over/%31",
      { min_total: 1 },
    ],
  ];
  for (const [rule, uri, vars] of numbers) {
    it(rule, () => {
      assert.deepStrictEqual(readOver(uri), vars);
      assertSameAsStrict("orders_over", uri);
    });
  }
});

describe("UriCursor declines anything else, and the strict path answers it", () => {
  const declined: [rule: string, template: TemplateName, uri: string][] = [
    [
      "parameters out of template order",
      "customers_index",
      "app://customers_index?sort=name&page=2",
    ],
    ["a repeated parameter", "customers_index", "app://customers_index?page=1&page=2"],
    ["an unknown parameter", "customers_index", "app://customers_index?serch=ada"],
    [
      "a parameter name that only starts like one",
      "customers_index",
      "app://customers_index?pages=2",
    ],
    ["a parameter without =", "customers_index", "app://customers_index?search"],
    ["a raw = inside a value", "customers_index", "app://customers_index?search=a=b"],
    ["a raw ? inside a value", "customers_index", "app://customers_index?search=a?b"],
    ["a raw / inside a value", "customers_index", "app://customers_index?search=a/b"],
    ["a second ? where & belongs", "customers_index", "app://customers_index?page=1?sort=name"],
    ["a stray & at the end", "customers_index", "app://customers_index?page=1&"],
    ["a lone ?", "customers_index", "app://customers_index?"],
    ["an escaped digit in an integer", "customers_index", "app://customers_index?page=%31"],
    ["an escaped parameter name", "customers_index", "app://customers_index?%70age=1"],
    ["an integer with a leading zero", "customers_index", "app://customers_index?page=01"],
    ["an empty integer", "customers_index", "app://customers_index?page="],
    ["a lone minus", "customers_index", "app://customers_index?page=-"],
    ["an integer past 2^53", "customers_index", "app://customers_index?page=9007199254740992"],
    ["an integer followed by letters", "customers_index", "app://customers_index?page=12a"],
    [
      "an enum constant followed by more",
      "customers_index",
      "app://customers_index?direction=ascending",
    ],
    ["an enum constant in another case", "customers_index", "app://customers_index?direction=ASC"],
    ["an escaped enum constant", "customers_index", "app://customers_index?direction=%61sc"],
    ["a malformed escape", "customers_index", "app://customers_index?search=%ZZ"],
    ["invalid UTF-8", "customers_index", "app://customers_index?search=%C3%28"],
    ["a raw space", "customers_index", "app://customers_index?search=a b"],
    ["a raw non-ASCII character", "customers_index", "app://customers_index?search=café"],
    ["a lone surrogate", "customers_index", "app://customers_index?search=\uD800"],
    ["a fragment", "customers_index", "app://customers_index?page=1#top"],
    ["a mixed-case scheme", "customers_index", "APP://customers_index?page=1"],
    ["a longer command name", "customers_index", "app://customers_indexes?page=1"],
    ["a URI over 2 KiB", "customers_index", `app://customers_index?search=${"a".repeat(2100)}`],
    ["an empty path segment", "orders_between", "app://orders_between//2025-01-31"],
    ["a missing path segment", "orders_between", "app://orders_between/2025-01-01"],
    ["an extra path segment", "customers_show", "app://customers_show/1/2"],
    ["a trailing slash", "customers_show", "app://customers_show/1/"],
    ["a raw & inside a path segment", "orders_between", "app://orders_between/a&b/c"],
    ["a query on a template without one", "customers_show", "app://customers_show/1?x=1"],
    ["NaN as a number", "orders_over", "app://orders_over/NaN"],
    ["a number past the largest double", "orders_over", "app://orders_over/1e999"],
    ["a boolean as 1", "orders_flagged", "app://orders_flagged?include_archived=1"],
    ["a boolean prefix", "orders_flagged", "app://orders_flagged?include_archived=t"],
  ];
  for (const [rule, name, uri] of declined) {
    it(rule, () => assertSameAsStrict(name, uri));
  }

  it("declines each of those itself, rather than reading them some other way", () => {
    for (const [, name, uri] of declined) {
      if (name === "customers_index") assert.equal(readIndex(uri), undefined, uri);
      if (name === "orders_over") assert.equal(readOver(uri), undefined, uri);
    }
  });
});

describe("isPlainConstant: which enum constants oneOf can compare in place", () => {
  const table: [constant: string, plain: boolean][] = [
    ["created_at", true],
    ["a.b-c~d", true],
    ["", false],
    ["a b", false],
    ["a/b", false],
    ["a&b", false],
    ["a=b", false],
    ["50%", false],
    ["é", false],
  ];
  for (const [constant, plain] of table) {
    it(`${JSON.stringify(constant)}: ${plain}`, () =>
      assert.equal(isPlainConstant(constant), plain));
  }
});

describe("every generated parser answers every string exactly as the strict path does", () => {
  it("on valid, near-miss and arbitrary URIs", () => {
    fc.assert(
      fc.property(
        fc.oneof(validUri, mutatedUri, arbitraryUri),
        fc.constantFrom(...TEMPLATE_NAMES),
        (uri, other) => {
          const own = TEMPLATE_NAMES.find((name) => uri.startsWith(`app://${name}`));
          if (own) assertSameAsStrict(own, uri);
          assertSameAsStrict(other, uri);
        },
      ),
      { numRuns: 4000 },
    );
  });
});
