import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  commandOf,
  formatScalar,
  formQuery,
  pathSegment,
  pickDefined,
  pickDefinedOrUndefined,
} from "../../packages/livecmd/runtime/uri/index.ts";

describe("pathSegment: RFC 6570 simple string expansion", () => {
  const table: [name: string, value: string | number | boolean, expected: string][] = [
    ["leaves unreserved characters as they are", "AZaz09-._~", "AZaz09-._~"],
    [
      "encodes every reserved character",
      ":/?#[]@!$&'()*+,;=",
      "%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D",
    ],
    ["encodes a space as %20, never +", "Ada Lovelace", "Ada%20Lovelace"],
    ["encodes % itself", "50%", "50%25"],
    ["encodes the other ASCII punctuation", '"<>\\^`{|}', "%22%3C%3E%5C%5E%60%7B%7C%7D"],
    ["encodes controls and DEL", "\0\t\n\x7f", "%00%09%0A%7F"],
    ["encodes 2-byte UTF-8", "café", "caf%C3%A9"],
    ["encodes 3-byte UTF-8", "€", "%E2%82%AC"],
    ["encodes 4-byte UTF-8 from a surrogate pair", "𝄞", "%F0%9D%84%9E"],
    ["encodes an unpaired surrogate as U+FFFD", "a\uD800b\uDC00", "a%EF%BF%BDb%EF%BF%BD"],
    ["gives the empty string for the empty string", "", ""],
    ["formats an integer", 12, "12"],
    ["formats a negative fraction", -1.5, "-1.5"],
    ["keeps the sign of -0", -0, "-0"],
    ["formats a large number in exponent form", 1e21, "1e%2B21"],
    ["formats a small number in exponent form", 1e-7, "1e-7"],
    ["formats true", true, "true"],
    ["formats false", false, "false"],
  ];
  for (const [name, value, expected] of table) {
    it(name, () => assert.equal(pathSegment(value), expected));
  }

  it("uses uppercase hex", () => assert.equal(pathSegment("\xff"), "%C3%BF"));
});

describe("formatScalar", () => {
  it("writes numbers so that they read back the same", () => {
    for (const n of [
      0,
      -0,
      1,
      -1,
      0.1,
      1e21,
      1e-7,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
    ]) {
      assert.ok(Object.is(Number(formatScalar(n)), n), String(n));
    }
  });
});

describe("formQuery: RFC 6570 form-style query expansion", () => {
  it("writes defined pairs in the given order", () => {
    assert.equal(
      formQuery([
        ["b", "x"],
        ["a", 1],
      ]),
      "?b=x&a=1",
    );
  });

  it("leaves undefined and null values out", () => {
    assert.equal(
      formQuery([
        ["a", undefined],
        ["b", 2],
        ["c", null],
        ["d", true],
      ]),
      "?b=2&d=true",
    );
  });

  it('writes "" as name=', () => {
    assert.equal(
      formQuery([
        ["search", ""],
        ["page", 1],
      ]),
      "?search=&page=1",
    );
  });

  it("gives the empty string when nothing is defined", () => {
    assert.equal(
      formQuery([
        ["a", undefined],
        ["b", null],
      ]),
      "",
    );
    assert.equal(formQuery([]), "");
  });

  it("encodes values like pathSegment, so & = + # stay inside a value", () => {
    assert.equal(formQuery([["q", "a&b=c+d #e"]]), "?q=a%26b%3Dc%2Bd%20%23e");
  });

  it("encodes unicode values", () => {
    assert.equal(formQuery([["word", "drücken"]]), "?word=dr%C3%BCcken");
  });

  it("keeps -0", () => {
    assert.equal(formQuery([["n", -0]]), "?n=-0");
  });
});

describe("commandOf", () => {
  const table: [uri: string, expected: string | undefined][] = [
    ["app://customers_show/12", "customers_show"],
    ["app://customers_index?page=2", "customers_index"],
    ["app://customers_index#x", "customers_index"],
    ["app://customers_index", "customers_index"],
    ["APP://customers_show/1", "customers_show"],
    ["aPp://Customers_Show/1", "Customers_Show"],
    ["app://", ""],
    ["apps://customers_show/1", undefined],
    ["ap://customers_show/1", undefined],
    ["app:/customers_show/1", undefined],
    ["app:customers_show", undefined],
    ["http://example.com/", undefined],
    ["", undefined],
    ["app", undefined],
  ];
  for (const [uri, expected] of table) {
    it(`gives ${JSON.stringify(expected)} for ${JSON.stringify(uri)}`, () =>
      assert.equal(commandOf(uri, "app"), expected));
  }

  it("folds ASCII letters only", () => {
    assert.equal(commandOf("a1b://x", "A1B"), "x");
    assert.equal(commandOf("a-b://x", "a\rb"), undefined);
  });
});

describe("pickDefined", () => {
  it("keeps only the given keys whose values are defined", () => {
    const vars = { kind: "tool", limit: 10, search: undefined, sort: "name" as const };
    assert.deepEqual(pickDefined(vars, ["limit", "search", "sort"]), { limit: 10, sort: "name" });
  });

  it("keeps null and other falsy values", () => {
    const vars = { a: null, b: 0, c: "", d: false };
    assert.deepEqual(pickDefined(vars, ["a", "b", "c", "d"]), { a: null, b: 0, c: "", d: false });
  });

  it("gives an empty object when nothing is defined", () => {
    assert.deepEqual(pickDefined({ a: undefined as number | undefined }, ["a"]), {});
  });

  it("keeps a key named __proto__ an own property instead of a prototype", () => {
    const vars = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const picked = pickDefined(vars, ["__proto__", "a"]) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(picked), Object.prototype);
    assert.ok(Object.hasOwn(picked, "__proto__"));
    assert.deepEqual(Object.keys(picked), ["__proto__", "a"]);
    assert.equal(picked["polluted"], undefined);
  });

  it("returns a new object", () => {
    const vars = { a: 1 };
    assert.notEqual(pickDefined(vars, ["a"]), vars);
  });

  it("types absent-able keys as optional and the rest as required", () => {
    const vars: { id: number; page?: number } = { id: 1 };
    const picked: { id: number; page?: number } = pickDefined(vars, ["id", "page"]);
    assert.deepEqual(picked, { id: 1 });
  });
});

describe("pickDefinedOrUndefined", () => {
  it("gives undefined when no key is defined", () => {
    const vars: { limit?: number; search?: string } = {};
    assert.equal(pickDefinedOrUndefined(vars, ["limit", "search"]), undefined);
  });

  it("gives the defined keys otherwise", () => {
    const vars: { limit?: number; search?: string } = { search: "ada" };
    assert.deepEqual(pickDefinedOrUndefined(vars, ["limit", "search"]), { search: "ada" });
  });
});
