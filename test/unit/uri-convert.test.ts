import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FieldReader, type FieldError } from "../../packages/livecmd/runtime/uri/index.ts";

const STATUSES = ["pending", "paid", "shipped", "cancelled"] as const;

type Read = (reader: FieldReader, raw: string) => unknown;

const readers: Record<string, Read> = {
  integer: (reader, raw) => reader.integer("field", raw),
  number: (reader, raw) => reader.number("field", raw),
  boolean: (reader, raw) => reader.boolean("field", raw),
  string: (reader, raw) => reader.string("field", raw),
  enum: (reader, raw) => reader.enum("field", raw, STATUSES),
};

function accepted(type: string, raw: string): unknown {
  const reader = new FieldReader();
  const value = readers[type]!(reader, raw);
  const result = reader.result({ value });
  if (!result.ok)
    assert.fail(
      `expected ${type} to accept ${JSON.stringify(raw)}; got ${JSON.stringify(result.errors)}`,
    );
  return value;
}

function rejected(type: string, raw: string): FieldError {
  const reader = new FieldReader();
  readers[type]!(reader, raw);
  const result = reader.result({});
  if (result.ok) assert.fail(`expected ${type} to reject ${JSON.stringify(raw)}`);
  assert.equal(result.errors.length, 1);
  return result.errors[0]!;
}

// docs/mcp.md, "Reading a URI back", the conversion table: every example, plus edges.
const ACCEPTED: [type: string, raw: string, value: unknown][] = [
  ["integer", "0", 0],
  ["integer", "12", 12],
  ["integer", "-12", -12],
  ["integer", "-0", -0],
  ["integer", "9007199254740991", 9007199254740991],
  ["integer", "-9007199254740991", -9007199254740991],
  ["number", "0", 0],
  ["number", "-0", -0],
  ["number", "1.5", 1.5],
  ["number", "-2e3", -2000],
  ["number", "1e+21", 1e21],
  ["number", "1E-7", 1e-7],
  ["number", "0.000", 0],
  ["number", "12345678901234567890", 12345678901234567890],
  ["boolean", "true", true],
  ["boolean", "false", false],
  ["string", "", ""],
  ["string", "Ada Lovelace", "Ada Lovelace"],
  ["string", "\0", "\0"],
  ["string", "😀 café", "😀 café"],
  ["enum", "paid", "paid"],
  ["enum", "cancelled", "cancelled"],
];

const REJECTED: [type: string, raw: string][] = [
  ...["1.0", "1e3", "+1", "01", "0x10", "", " 1", "9007199254740993"].map(
    (raw) => ["integer", raw] as [string, string],
  ),
  ...["9007199254740992", "-9007199254740992", "-", "--1", "1 ", "1_000", "١"].map(
    (raw) => ["integer", raw] as [string, string],
  ),
  ...["NaN", "Infinity", ".5", "1.", "", "1,5"].map((raw) => ["number", raw] as [string, string]),
  ...["+1", "0x10", " 1", "-Infinity", "1e", "1e+", "01", "-", "1e400", "-1e400", "0.5.1"].map(
    (raw) => ["number", raw] as [string, string],
  ),
  ...["TRUE", "1", "yes", "", "True", " true", "false "].map(
    (raw) => ["boolean", raw] as [string, string],
  ),
  ...["PAID", "", "paid ", "unknown"].map((raw) => ["enum", raw] as [string, string]),
];

describe("FieldReader: the conversion table", () => {
  for (const [type, raw, value] of ACCEPTED) {
    it(`${type} accepts ${JSON.stringify(raw)}`, () => {
      const read = accepted(type, raw);
      assert.ok(Object.is(read, value), `${String(read)} is not ${String(value)}`);
    });
  }
  for (const [type, raw] of REJECTED) {
    it(`${type} rejects ${JSON.stringify(raw)}`, () => {
      const error = rejected(type, raw);
      assert.equal(error.field, "field");
      assert.ok(error.message.startsWith("must be"), error.message);
      assert.ok(error.message.includes(`got ${JSON.stringify(raw)}`), error.message);
    });
  }
});

describe("FieldReader: messages", () => {
  it("say what an integer looks like", () => {
    assert.equal(rejected("integer", "1.0").message, 'must be an integer like 12; got "1.0"');
  });

  it("give the integer range for an out-of-range integer", () => {
    assert.match(
      rejected("integer", "9007199254740993").message,
      /between -9007199254740991 and 9007199254740991/,
    );
  });

  it("say what a number looks like", () => {
    assert.match(rejected("number", ".5").message, /must be a number like 1\.5/);
  });

  it("say that an infinite number is out of range", () => {
    assert.match(rejected("number", "1e400").message, /within ±1\.7976931348623157e\+308/);
  });

  it("say which booleans are accepted", () => {
    assert.equal(rejected("boolean", "yes").message, 'must be true or false; got "yes"');
  });

  it("list the enum's constants in order", () => {
    assert.equal(
      rejected("enum", "unknown").message,
      'must be one of "pending", "paid", "shipped", "cancelled"; got "unknown"',
    );
  });

  it("point at the constant a value misses only by case", () => {
    assert.match(rejected("enum", "PAID").message, /\(did you mean "paid"\?\)$/);
  });

  it("name the field they are about beside the message, as a schema's errors do (`page: must be ...`)", () => {
    const reader = new FieldReader();
    reader.integer("page", "x");
    const result = reader.result({});
    assert.ok(!result.ok);
    assert.deepEqual(result.errors[0], {
      field: "page",
      message: 'must be an integer like 12; got "x"',
    });
  });

  it("cut long values to about 40 characters", () => {
    const message = rejected("integer", "9".repeat(500)).message;
    assert.ok(message.length < 200, message);
    assert.match(message, /got "9{40}"\.\.\. \(500 characters\)$/);
  });

  it("never cut a value between the halves of a surrogate pair", () => {
    const message = rejected("integer", "x".repeat(39) + "😀".repeat(10)).message;
    assert.match(message, /got "x{39}"\.\.\./);
  });

  it("show control characters escaped", () => {
    assert.match(rejected("boolean", "\0").message, /got "\\u0000"$/);
  });
});

describe("FieldReader: absent values and result", () => {
  it("reads an absent value as undefined with every method", () => {
    const reader = new FieldReader();
    assert.equal(reader.integer("a", undefined), undefined);
    assert.equal(reader.number("b", undefined), undefined);
    assert.equal(reader.boolean("c", undefined), undefined);
    assert.equal(reader.string("d", undefined), undefined);
    assert.equal(reader.enum("e", undefined, STATUSES), undefined);
    assert.deepEqual(reader.result({}), { ok: true, vars: {} });
  });

  it("drops undefined variables from the result", () => {
    const reader = new FieldReader();
    const vars = {
      from: reader.string("from", "2024-01-01"),
      page: reader.integer("page", undefined),
      status: reader.enum("status", "paid", STATUSES),
    };
    const result = reader.result(vars);
    assert.deepEqual(result, { ok: true, vars: { from: "2024-01-01", status: "paid" } });
    assert.ok(result.ok && !("page" in result.vars));
  });

  it("keeps a variable named __proto__ a plain key", () => {
    const reader = new FieldReader();
    const vars = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    const result = reader.result(vars);
    assert.ok(result.ok);
    assert.ok(Object.hasOwn(result.vars, "__proto__"));
    assert.equal(Object.getPrototypeOf(result.vars), Object.prototype);
  });

  it("collects every field error, not just the first", () => {
    const reader = new FieldReader();
    const vars = {
      page: reader.integer("page", "1.0"),
      ok: reader.string("ok", "fine"),
      flag: reader.boolean("flag", "yes"),
      status: reader.enum("status", "lost", STATUSES),
    };
    const result = reader.result(vars);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.errors.map((error) => error.field),
      ["page", "flag", "status"],
    );
  });

  it("types a present raw value as the converted type and a maybe-absent one as optional", () => {
    const reader = new FieldReader();
    const present: number = reader.integer("a", "1");
    const status: "paid" | "open" = reader.enum("s", "paid", ["paid", "open"]);
    const maybe: number | undefined = reader.number("b", undefined as string | undefined);
    const result = reader.result({ present, status, maybe });
    if (result.ok) {
      const { present: p, maybe: m }: { present: number; maybe?: number } = result.vars;
      assert.equal(p, 1);
      assert.equal(m, undefined);
    }
  });
});
