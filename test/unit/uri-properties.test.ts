import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  FieldReader,
  formQuery,
  pathSegment,
  splitUri,
  type ParseResult,
  type SplitResult,
} from "../../packages/livecmd/runtime/uri/index.ts";

// Fixed so that a failure reproduces; fast-check prints the counterexample and its path.
const RUNS = { numRuns: 3000, seed: 0x11ec3d };

const BASE = "app://orders_between";
const PATH = ["from", "to"] as const;
const QUERY = ["status", "page", "__proto__"] as const;

/** Any UTF-16 code unit, unpaired surrogates included: what a JS string may really hold. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const anyJsString = fc.string({ unit: codeUnit, maxLength: 80 });
const anyString = fc.oneof(fc.string({ unit: "binary", maxLength: 80 }), anyJsString);

/** A URI assembled from the pieces the splitter treats specially, to reach its every branch. */
const PIECES = [
  BASE,
  "app://",
  "APP://",
  "orders_between",
  "/",
  "//",
  "?",
  "&",
  "=",
  "#",
  "%",
  "%2F",
  "%C3",
  "%A9",
  "%ED%A0%80",
  "%ZZ",
  "%00",
  "+",
  "a",
  "é",
  " ",
  "\uD800",
  "\uDC00",
  "😀",
  "status",
  "page",
  "__proto__",
  "constructor",
  "from",
];
const pieceUri = fc
  .array(fc.constantFrom(...PIECES), { maxLength: 20 })
  .map((pieces) => pieces.join(""));

function assertWellFormedResult(result: ParseResult<unknown> | SplitResult<string, string>): void {
  if (result.ok) return;
  assert.ok(result.errors.length > 0);
  for (const error of result.errors) {
    assert.equal(typeof error.field, "string");
    assert.ok(error.message.length > 0);
  }
}

describe("splitUri never throws", () => {
  it("on arbitrary strings", () => {
    fc.assert(
      fc.property(anyString, (uri) => assertWellFormedResult(splitUri(uri, BASE, PATH, QUERY))),
      RUNS,
    );
  });

  it("on URIs built from meaningful pieces", () => {
    fc.assert(
      fc.property(pieceUri, (uri) => assertWellFormedResult(splitUri(uri, BASE, PATH, QUERY))),
      RUNS,
    );
  });

  it("on the base followed by arbitrary strings", () => {
    fc.assert(
      fc.property(anyString, anyString, (path, query) => {
        assertWellFormedResult(splitUri(`${BASE}/${path}?${query}`, BASE, PATH, QUERY));
      }),
      RUNS,
    );
  });
});

describe("FieldReader never throws", () => {
  it("on arbitrary strings, with every method", () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        const reader = new FieldReader();
        reader.integer("i", raw);
        reader.number("n", raw);
        reader.boolean("b", raw);
        reader.string("s", raw);
        reader.enum("e", raw, ["a", "b"]);
        assertWellFormedResult(reader.result({}));
      }),
      RUNS,
    );
  });
});

/** Reads `value` back from the path segment it expands to. */
function throughPath(value: string | number | boolean): string {
  const result = splitUri(`app://show/${pathSegment(value)}`, "app://show", ["v"], []);
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return result.parts.path.v;
}

// Valid values only: a lone surrogate is not valid UTF-8, and "" has no path segment (an empty
// segment is an error), so neither can round-trip through a path.
const validString = fc.string({ unit: "binary", maxLength: 100 });

describe("a path segment reads back as the value it was expanded from", () => {
  it("for strings", () => {
    fc.assert(
      fc.property(
        validString.filter((s) => s.length > 0),
        (value) => assert.equal(throughPath(value), value),
      ),
      RUNS,
    );
  });

  it("for strings of any printable grapheme", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1 }), (value) =>
        assert.equal(throughPath(value), value),
      ),
      RUNS,
    );
  });

  it("for finite numbers, -0 included", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const reader = new FieldReader();
        const read = reader.number("v", throughPath(value));
        assert.ok(reader.result({}).ok);
        assert.ok(Object.is(read, value), `${read} is not ${value}`);
      }),
      RUNS,
    );
  });

  it("for safe integers, -0 included", () => {
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeInteger(), fc.constant(-0)), (value) => {
        const reader = new FieldReader();
        const read = reader.integer("v", throughPath(value));
        assert.ok(reader.result({}).ok);
        assert.ok(Object.is(read, value), `${read} is not ${value}`);
      }),
      RUNS,
    );
  });

  it("for booleans", () => {
    for (const value of [true, false]) {
      const reader = new FieldReader();
      assert.equal(reader.boolean("v", throughPath(value)), value);
    }
  });
});

describe("a form query reads back as the pairs it was expanded from", () => {
  const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

  it("for any mix of defined, undefined and empty values, in any order", () => {
    const pairs = fc
      .tuple(
        maybe(validString),
        maybe(fc.oneof(validString, fc.integer().map(String))),
        maybe(validString),
      )
      .chain(([status, page, proto]) =>
        fc.shuffledSubarray(
          [
            ["status", status],
            ["page", page],
            ["__proto__", proto],
          ] as [string, string | undefined][],
          { minLength: 3, maxLength: 3 },
        ),
      );
    fc.assert(
      fc.property(pairs, (given) => {
        const result = splitUri(`${BASE}/a/b${formQuery(given)}`, BASE, PATH, QUERY);
        if (!result.ok) assert.fail(JSON.stringify(result.errors));
        const expected = Object.fromEntries(given.filter(([, value]) => value !== undefined));
        assert.deepEqual({ ...result.parts.query }, { ...expected });
        assert.equal(Object.getPrototypeOf(result.parts.query), null);
      }),
      RUNS,
    );
  });
});
