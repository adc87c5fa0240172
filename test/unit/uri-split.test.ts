import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  MAX_URI_LENGTH,
  splitUri,
  type FieldError,
  type UriParts,
} from "../../packages/livecmd/runtime/uri/index.ts";

// app://orders_between/{from}/{to}{?status,page}
const BASE = "app://orders_between";
const split = (uri: string) => splitUri(uri, BASE, ["from", "to"], ["status", "page"]);

function partsOf(uri: string): UriParts {
  const result = split(uri);
  if (!result.ok)
    assert.fail(`expected ${JSON.stringify(uri)} to split; got ${JSON.stringify(result.errors)}`);
  return result.parts;
}

function errorsOf(uri: string): FieldError[] {
  const result = split(uri);
  if (result.ok)
    assert.fail(
      `expected ${JSON.stringify(uri)} to be rejected; got ${JSON.stringify(result.parts)}`,
    );
  return result.errors;
}

/** The only error for `uri`, which must be on `field` and match every pattern. */
function assertOneError(uri: string, field: string, ...patterns: RegExp[]): void {
  const errors = errorsOf(uri);
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.equal(errors[0]!.field, field, errors[0]!.message);
  for (const pattern of patterns) assert.match(errors[0]!.message, pattern);
}

const pathOf = (uri: string) => ({ ...partsOf(uri).path });
const queryOf = (uri: string) => ({ ...partsOf(uri).query });

describe("splitUri: a well-formed URI", () => {
  it("gives the path by variable name and the query by parameter name", () => {
    const parts = partsOf(`${BASE}/2024-01-01/2024-02-01?status=paid&page=2`);
    assert.deepEqual({ ...parts.path }, { from: "2024-01-01", to: "2024-02-01" });
    assert.deepEqual({ ...parts.query }, { status: "paid", page: "2" });
  });

  it("leaves absent query parameters out", () => {
    assert.deepEqual(queryOf(`${BASE}/a/b`), {});
    assert.deepEqual(queryOf(`${BASE}/a/b?page=1`), { page: "1" });
  });

  it("reads a template with neither path nor query from its bare base", () => {
    const result = splitUri("app://customers_index", "app://customers_index", [], ["page"]);
    assert.ok(result.ok);
    assert.deepEqual({ ...result.parts.path }, {});
    assert.deepEqual({ ...result.parts.query }, {});
  });

  it("accepts RFC 3986 sub-delimiters and other harmless ASCII raw", () => {
    assert.deepEqual(pathOf(`${BASE}/a:b@c!$'()*+,;=/[x]~-._`), {
      from: "a:b@c!$'()*+,;=",
      to: "[x]~-._",
    });
  });
});

describe("splitUri: length cap", () => {
  it(`rejects more than ${MAX_URI_LENGTH} bytes with one "uri" error`, () => {
    const uri = `${BASE}/a/${"b".repeat(MAX_URI_LENGTH)}`;
    assertOneError(uri, "uri", /2048 bytes/);
  });

  it("accepts exactly 2048 bytes", () => {
    const prefix = `${BASE}/a/`;
    const uri = prefix + "b".repeat(MAX_URI_LENGTH - prefix.length);
    assert.equal(uri.length, MAX_URI_LENGTH);
    assert.equal(pathOf(uri).to, "b".repeat(MAX_URI_LENGTH - prefix.length));
  });

  it("measures UTF-8 bytes, and checks length before anything else", () => {
    // 1,100 characters but 2,200 bytes: the length error replaces the raw-character errors.
    assertOneError(`${BASE}/a/${"é".repeat(1100)}`, "uri", /2048 bytes/);
    assertOneError(`OTHER://${"é".repeat(1100)}`, "uri", /2048 bytes/);
  });
});

describe("splitUri: scheme and command", () => {
  it("asks for the scheme exactly as in the template", () => {
    assertOneError("APP://orders_between/a/b", "uri", /app:\/\//, /"APP:\/\/"/);
  });

  it("reports a mis-cased scheme along with the URI's other mistakes", () => {
    const errors = errorsOf("App://orders_between/a b/c");
    assert.deepEqual(
      errors.map((error) => error.field),
      ["uri", "uri"],
    );
    assert.match(errors[0]!.message, /app:\/\//);
    assert.match(errors[1]!.message, /space/);
  });

  it("rejects another command as a whole-URI error naming it", () => {
    assertOneError("app://customers_show/1", "uri", /"customers_show"/, /"orders_between"/);
    assertOneError("app://orders_betweenx/a/b", "uri", /"orders_betweenx"/);
    assertOneError("app://Orders_between/a/b", "uri", /"Orders_between"/);
  });

  it("rejects another scheme", () => {
    assertOneError("http://orders_between/a/b", "uri", /must start with "app:\/\/orders_between"/);
    assertOneError("", "uri", /must start with/);
  });
});

describe("splitUri: characters that must be percent-encoded", () => {
  // `${BASE}/x` is 22 characters long, so the character under test sits at position 22.
  const table: [name: string, char: string, escapes: string][] = [
    ["space", " ", "%20"],
    ["double quote", '"', "%22"],
    ["less-than", "<", "%3C"],
    ["greater-than", ">", "%3E"],
    ["backslash", "\\", "%5C"],
    ["caret", "^", "%5E"],
    ["backtick", "`", "%60"],
    ["left brace", "{", "%7B"],
    ["pipe", "|", "%7C"],
    ["right brace", "}", "%7D"],
    ["tab (control)", "\t", "%09"],
    ["NUL (control)", "\0", "%00"],
    ["DEL", "\x7f", "%7F"],
    ["non-ASCII letter", "é", "%C3%A9"],
    ["astral character", "😀", "%F0%9F%98%80"],
  ];
  for (const [name, char, escapes] of table) {
    it(`rejects a raw ${name}, saying where and how to encode it`, () => {
      assertOneError(
        `${BASE}/x${char}/b`,
        "uri",
        new RegExp(`at position 22; percent-encode it as ${escapes}$`),
      );
    });
  }

  it('words a space as in "contains a space at position 25; percent-encode it as %20"', () => {
    assertOneError(
      `${BASE}/abcd e/b`,
      "uri",
      /^the URI contains a space at position 25; percent-encode it as %20$/,
    );
  });

  it("reports an unpaired surrogate as having no encoding", () => {
    assertOneError(
      `${BASE}/x\uD800/b`,
      "uri",
      /unpaired surrogate \(U\+D800\) at position 22/,
      /remove it/,
    );
  });

  it("gives one error per distinct character, with its count", () => {
    const errors = errorsOf(`${BASE}/a b c/d e?status=f<g`);
    assert.equal(errors.length, 2);
    assert.match(errors[0]!.message, /a space 3 times, first at position 22/);
    assert.match(errors[1]!.message, /"<"/);
  });

  it("checks the query as well as the path", () => {
    assertOneError(`${BASE}/a/b?status=x y`, "uri", /space/);
  });
});

describe("splitUri: fragment", () => {
  it("rejects a fragment after the path", () => {
    assertOneError(`${BASE}/a/b#top`, "uri", /fragment at position 24/, /%23/);
  });

  it("rejects a fragment after the query", () => {
    assertOneError(`${BASE}/a/b?status=paid#x`, "uri", /fragment/);
  });

  it("rejects an empty fragment", () => {
    assertOneError(`${BASE}/a/b#`, "uri", /fragment/);
  });
});

describe("splitUri: path segments", () => {
  it("rejects too few segments, saying how many are expected", () => {
    assertOneError(
      `${BASE}/a`,
      "uri",
      /must have 2 path segments/,
      /\/\{from\}\/\{to\}/,
      /it has 1$/,
    );
    assertOneError(BASE, "uri", /must have 2 path segments/, /it has 0$/);
    assertOneError(`${BASE}?status=paid`, "uri", /must have 2 path segments/);
  });

  it("rejects too many segments, saying how many are expected", () => {
    assertOneError(`${BASE}/a/b/c`, "uri", /must have 2 path segments/, /it has 3$/);
    assertOneError(`${BASE}/a/b/`, "uri", /it has 3$/);
  });

  it("rejects any path on a template without path variables", () => {
    const result = splitUri("app://customers_index/", "app://customers_index", [], []);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.errors.map((error) => error.field),
      ["uri"],
    );
    assert.match(result.errors[0]!.message, /no path after "app:\/\/customers_index"; it has 1/);
  });

  it("rejects an empty segment on that variable's field", () => {
    assertOneError(`${BASE}//b`, "from", /^is empty/);
    assertOneError(`${BASE}/a/`, "to", /^is empty/);
  });

  it("does not blame fields for segment errors when the count is wrong", () => {
    assertOneError(`${BASE}/%ZZ/b/c`, "uri", /must have 2 path segments/);
  });
});

describe("splitUri: percent-decoding", () => {
  it("keeps %2F inside the value instead of splitting on it", () => {
    assert.deepEqual(pathOf(`${BASE}/a%2Fb/c%2f`), { from: "a/b", to: "c/" });
  });

  it("decodes UTF-8, any hex case", () => {
    assert.deepEqual(pathOf(`${BASE}/caf%C3%A9/%f0%9f%98%80`), { from: "café", to: "😀" });
  });

  it("decodes %00 to U+0000, which is data", () => {
    assert.deepEqual(pathOf(`${BASE}/%00/a%00b`), { from: "\0", to: "a\0b" });
  });

  it("decodes reserved characters written as escapes", () => {
    assert.deepEqual(queryOf(`${BASE}/a/b?status=%26%3D%23%3F%2B%20`), { status: "&=#?+ " });
  });

  // The segment starts at position 21.
  const malformed: [segment: string, shown: string, position: number][] = [
    ["%", "%", 21],
    ["%4", "%4", 21],
    ["%ZZ", "%ZZ", 21],
    ["%4G", "%4G", 21],
    ["a%", "%", 22],
    ["%%41", "%%4", 21],
  ];
  for (const [segment, shown, position] of malformed) {
    it(`rejects the malformed escape in ${JSON.stringify(segment)} on its field`, () => {
      const message = `^has ${JSON.stringify(shown)} at position ${position}, a malformed percent-escape`;
      assertOneError(`${BASE}/${segment}/b`, "from", new RegExp(message), /%25/);
    });
  }

  const invalidUtf8: [name: string, escapes: string, reason: RegExp][] = [
    ["a lead byte followed by ASCII", "%C3%28", /incomplete/],
    ["a truncated 2-byte sequence at the end", "%C3", /incomplete/],
    ["a truncated 3-byte sequence", "%E2%82", /incomplete/],
    ["a lead byte followed by a raw character", "%C3x", /incomplete/],
    ["a lone continuation byte", "%80", /continuation byte/],
    ["an overlong 2-byte encoding", "%C0%AF", /overlong/],
    ["an overlong 3-byte encoding", "%E0%80%AF", /overlong/],
    ["an overlong 4-byte encoding", "%F0%80%80%AF", /overlong/],
    ["an encoded surrogate", "%ED%A0%80", /surrogate/],
    ["a code point above U+10FFFF", "%F4%90%80%80", /above U\+10FFFF/],
    ["the byte FF", "%FF", /never occurs/],
    ["the byte F5", "%F5%80%80%80", /never occurs/],
  ];
  for (const [name, escapes, reason] of invalidUtf8) {
    it(`rejects invalid UTF-8: ${name} (${escapes})`, () => {
      assertOneError(`${BASE}/${escapes}/b`, "from", /^has "%/, /not valid UTF-8/, reason);
    });
  }

  it("names the query parameter whose value is badly escaped", () => {
    assertOneError(
      `${BASE}/a/b?status=%C3%28`,
      "status",
      /^has "%C3%28" at position \d+, which is not valid UTF-8/,
    );
  });

  it("decodes query names too", () => {
    assert.deepEqual(queryOf(`${BASE}/a/b?st%61tus=paid`), { status: "paid" });
  });

  it("rejects a badly escaped query name as a URI error", () => {
    assertOneError(
      `${BASE}/a/b?st%ZZus=paid`,
      "uri",
      /query parameter name at position 25 has "%ZZ"/,
    );
  });
});

describe("splitUri: query", () => {
  it("rejects an unknown name, naming it and listing the valid ones", () => {
    assertOneError(`${BASE}/a/b?pgae=2`, "uri", /"pgae"/, /status, page$/);
  });

  it("says so when the template takes no query at all", () => {
    const result = splitUri("app://customers_show/1?x=1", "app://customers_show", ["id"], []);
    assert.ok(!result.ok);
    assert.match(result.errors[0]!.message, /"x", but this template takes no query parameters/);
  });

  it("rejects a repeated name once, on its field", () => {
    assertOneError(`${BASE}/a/b?page=1&status=paid&page=2&page=3`, "page", /more than once/);
  });

  it("rejects a part without =", () => {
    assertOneError(`${BASE}/a/b?status`, "status", /^has no "="/, /status=value/);
  });

  const emptyParts: [name: string, query: string, position: number][] = [
    ["a bare ?", "?", 25],
    ["a leading &", "?&status=paid", 25],
    ["a trailing &", "?status=paid&", 37],
    ["a double &", "?status=paid&&page=1", 37],
  ];
  for (const [name, query, position] of emptyParts) {
    it(`rejects an empty part: ${name}`, () => {
      assertOneError(
        `${BASE}/a/b${query}`,
        "uri",
        new RegExp(`empty parameter at position ${position}`),
      );
    });
  }

  it("rejects a part with an empty name", () => {
    assertOneError(`${BASE}/a/b?=paid`, "uri", /empty name/);
  });

  it("reads + as a literal plus, not a space", () => {
    assert.deepEqual(queryOf(`${BASE}/a/b?status=a+b`), { status: "a+b" });
  });

  it("takes parameters in any order", () => {
    assert.deepEqual(
      queryOf(`${BASE}/a/b?page=2&status=paid`),
      queryOf(`${BASE}/a/b?status=paid&page=2`),
    );
  });

  it("reads name= as the empty string", () => {
    assert.deepEqual(queryOf(`${BASE}/a/b?status=&page=`), { status: "", page: "" });
  });

  it("keeps =, ? and / after the first = in the value", () => {
    assert.deepEqual(queryOf(`${BASE}/a/b?status=a=b?c/d`), { status: "a=b?c/d" });
  });
});

describe("splitUri: errors are collected", () => {
  it("gives one error per bad query parameter", () => {
    const errors = errorsOf(`${BASE}/a/b?status=%ZZ&page=%C3&x=1`);
    assert.deepEqual(
      errors.map((error) => error.field),
      ["status", "page", "uri"],
    );
  });

  it("gives path and query errors together", () => {
    const errors = errorsOf(`${BASE}//%FF?status&status=1&status=2#x`);
    assert.deepEqual(
      errors.map((error) => error.field),
      ["from", "to", "status", "status", "uri"],
    );
  });
});

describe("splitUri: hostile names", () => {
  it("treats __proto__ and constructor as unknown names without touching Object.prototype", () => {
    assertOneError(`${BASE}/a/b?__proto__=x`, "uri", /"__proto__"/);
    assertOneError(`${BASE}/a/b?constructor=x`, "uri", /"constructor"/);
    assert.equal(({} as Record<string, unknown>)["x"], undefined);
  });

  it("returns a null-prototype query holding only declared names", () => {
    const { query } = partsOf(`${BASE}/a/b?status=paid`);
    assert.equal(Object.getPrototypeOf(query), null);
    assert.deepEqual(Object.keys(query), ["status"]);
    assert.equal((query as Record<string, unknown>)["constructor"], undefined);
    assert.equal((query as Record<string, unknown>)["toString"], undefined);
  });

  it("stores __proto__ as an ordinary name when the template declares it", () => {
    const result = splitUri(
      "app://t?__proto__=x&constructor=y",
      "app://t",
      [],
      ["__proto__", "constructor"],
    );
    assert.ok(result.ok);
    const query = result.parts.query as Record<string, string>;
    assert.equal(Object.getPrototypeOf(query), null);
    assert.ok(Object.hasOwn(query, "__proto__"));
    assert.equal(query["__proto__"], "x");
    assert.equal(query["constructor"], "y");
  });

  it("keeps a path variable named __proto__ an ordinary key", () => {
    const result = splitUri("app://t/x", "app://t", ["__proto__"], []);
    assert.ok(result.ok);
    assert.ok(Object.hasOwn(result.parts.path, "__proto__"));
    assert.equal(result.parts.path["__proto__"], "x");
    assert.equal((result.parts.path as Record<string, unknown>)["toString"], undefined);
  });
});

describe("splitUri: never throws", () => {
  const nasty = [
    "\uD800",
    "\uDC00",
    "app://\uD83D",
    `${BASE}/\uDFFF/\uD800?status=\uDBFF`,
    "%",
    "?",
    "#",
    "/",
    "app://",
  ];
  for (const uri of nasty) {
    it(`returns a result for ${JSON.stringify(uri)}`, () => {
      assert.doesNotThrow(() => split(uri));
      assert.equal(split(uri).ok, false);
    });
  }
});
