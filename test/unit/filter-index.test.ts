import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { RowImage } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import {
  RowFilter,
  within,
  type Atom,
  type Interval,
  type Probe,
  type View,
} from "../../packages/livecmd/runtime/db/rowFilter.ts";
import {
  compareScalars,
  decimalOf,
  scalarKey,
  type Scalar,
} from "../../packages/livecmd/runtime/db/scalar.ts";
import { FilterIndex } from "../../packages/livecmd/runtime/live/filterIndex.ts";
import { IntervalTree } from "../../packages/livecmd/runtime/live/intervalTree.ts";

const number = (value: number | bigint): Scalar => ({ kind: "number", value });
const text = (value: string): Scalar => ({ kind: "text", value });

test("scalars order as SQLite orders storage classes, numbers by exact value whatever their form", () => {
  const ascending: Scalar[] = [
    number(-Infinity),
    number(-(2n ** 63n)),
    decimalOf("-0.5")!,
    number(0),
    decimalOf("0.1")!,
    number(0.1), // the double is 0.1000000000000000055...
    number(2n ** 53n),
    number(2n ** 53n + 1n),
    number(Infinity),
    text(""),
    text("A"),
    text("a"),
    text("\uffff"),
    text("\u{10000}"), // U+10000 sorts after U+FFFF by code point, before it by UTF-16 code unit
    { kind: "blob", value: "00" },
    { kind: "blob", value: "0000" },
  ];
  for (let i = 0; i < ascending.length; i += 1)
    for (let j = 0; j < ascending.length; j += 1)
      assert.equal(
        Math.sign(compareScalars(ascending[i]!, ascending[j]!)),
        Math.sign(i - j),
        `${i} vs ${j}`,
      );
});

test("scalars that compare equal share a key, and only they: 7, 7.0 and 7.00; 0.5 as a double and as a decimal", () => {
  const values: Scalar[] = [
    number(7n),
    number(7),
    decimalOf("7.00")!,
    number(0.5),
    decimalOf("0.50")!,
    decimalOf("0.1")!,
    number(0.1),
    text("7"),
    number(2n ** 53n + 1n),
    number(2 ** 53),
  ];
  for (const a of values)
    for (const b of values)
      assert.equal(
        scalarKey(a) === scalarKey(b),
        compareScalars(a, b) === 0,
        `${scalarKey(a)} vs ${scalarKey(b)}`,
      );
});

/** Intervals over small integers, with bounds inclusive, exclusive or absent. */
const bound = fc.option(
  fc.record({
    value: fc.integer({ min: 0, max: 20 }).map((n) => number(n)),
    inclusive: fc.boolean(),
  }),
  { nil: undefined },
);
const interval: fc.Arbitrary<Interval> = fc.record(
  { lower: bound, upper: bound },
  { requiredKeys: [] },
);

test("an interval tree finds exactly the intervals that hold a value, through additions and removals (against a list)", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(interval, fc.boolean()), { maxLength: 60 }),
      fc.array(fc.integer({ min: -1, max: 21 }), { minLength: 1, maxLength: 10 }),
      (steps, probes) => {
        const tree = new IntervalTree<number>();
        const held = new Map<number, { interval: Interval; remove: () => void }>();
        steps.forEach(([each, removeOne], i) => {
          held.set(i, { interval: each, remove: tree.add(each, i) });
          const [first] = held.keys();
          if (removeOne && first !== undefined) {
            held.get(first)!.remove();
            held.delete(first);
          }
        });
        assert.equal(tree.size, held.size);
        for (const probe of probes) {
          const found: number[] = [];
          tree.stab(number(probe), (item) => found.push(item));
          const expected = [...held]
            .filter(([, { interval: each }]) => within(each, number(probe)))
            .map(([i]) => i);
          assert.deepEqual(
            found.sort((a, b) => a - b),
            expected,
          );
        }
      },
    ),
    { numRuns: 300, seed: 34 },
  );
});

/** A view of column `x`, as a number. */
const X: View = {
  id: "x",
  of: (image) => {
    const value = image.x;
    return value === undefined || value === null ? value : number(BigInt(value));
  },
};

/** An atom `x OP n` with its probes, as drivers build them. */
function comparison(op: "=" | "<" | ">", n: number): Atom {
  const value = number(n);
  const whenTrue: Probe =
    op === "="
      ? { view: X, equals: [value] }
      : {
          view: X,
          within:
            op === "<"
              ? { upper: { value, inclusive: false } }
              : { lower: { value, inclusive: false } },
        };
  return {
    test(image) {
      const x = X.of(image);
      if (x === undefined) return undefined;
      if (x === null) return false;
      const order = compareScalars(x, value);
      return op === "=" ? order === 0 : op === "<" ? order < 0 : order > 0;
    },
    whenTrue,
    text: `x ${op} ${n}`,
    negation: `NOT x ${op} ${n}`,
  };
}

const atom = fc
  .tuple(fc.constantFrom("=", "<", ">" as const), fc.integer({ min: 0, max: 10 }))
  .map(([op, n]) => comparison(op, n));
/** Filters of one or two tests, joined by AND or OR. */
const filter = fc.oneof(
  atom.map((a) => new RowFilter({ atom: a, ifTrue: true, ifFalse: false })),
  fc
    .tuple(atom, atom, fc.boolean())
    .map(
      ([a, b, and]) =>
        new RowFilter(
          and
            ? { atom: a, ifTrue: { atom: b, ifTrue: true, ifFalse: false }, ifFalse: false }
            : { atom: a, ifTrue: true, ifFalse: { atom: b, ifTrue: true, ifFalse: false } },
        ),
    ),
);
const image: fc.Arbitrary<RowImage> = fc.oneof(
  fc.integer({ min: -1, max: 11 }).map((x) => ({ x: String(x) })),
  fc.constant({ x: null }),
  fc.constant({}),
);

test("the filter index finds exactly the groups whose filters keep a changed row, old or new (against testing every filter)", () => {
  fc.assert(
    fc.property(
      fc.array(filter, { minLength: 1, maxLength: 40 }),
      fc.array(image, { minLength: 1, maxLength: 2 }),
      fc.integer({ min: 0, max: 40 }),
      (filters, rows, removed) => {
        const index = new FilterIndex<number>();
        filters.forEach((each, group) => index.add(group, "t", each));
        if (removed < filters.length) index.remove(removed, "t", filters[removed]!);
        const affected = new Set<number>();
        index.collect({ table: "t", rows }, affected);
        const expected = filters.flatMap((each, group) =>
          group !== removed && rows.some((row) => each.admits(row)) ? [group] : [],
        );
        assert.deepEqual(
          [...affected].sort((a, b) => a - b),
          expected,
        );
        const all = new Set<number>();
        index.collect({ table: "t" }, all);
        assert.equal(
          all.size,
          filters.length - (removed < filters.length ? 1 : 0),
          "rows not known: every filter of the table",
        );
      },
    ),
    { numRuns: 300, seed: 34 },
  );
});

test("a filter's probes are what its tests need: an AND needs either's, an OR needs both's, a NOT none", () => {
  const probesOf = (each: RowFilter) =>
    each.probes?.map((probe) =>
      "equals" in probe
        ? `= ${probe.equals.map(scalarKey)}`
        : JSON.stringify(probe.within, (_, v: unknown) => (typeof v === "bigint" ? Number(v) : v)),
    );
  const a = comparison(">", 5);
  const b = comparison("=", 2);
  const seven = comparison("=", 7);
  assert.deepEqual(
    probesOf(
      new RowFilter({
        atom: a,
        ifTrue: { atom: seven, ifTrue: true, ifFalse: false },
        ifFalse: false,
      }),
    ),
    ["= n7"],
  );
  // x > 5 AND x = 2 keeps no row: a probe of no value.
  assert.deepEqual(
    probesOf(
      new RowFilter({ atom: a, ifTrue: { atom: b, ifTrue: true, ifFalse: false }, ifFalse: false }),
    ),
    ["= "],
  );
  assert.deepEqual(
    probesOf(
      new RowFilter({ atom: a, ifTrue: true, ifFalse: { atom: b, ifTrue: true, ifFalse: false } }),
    ),
    ['{"lower":{"value":{"kind":"number","value":5},"inclusive":false}}', "= n2"],
  );
  assert.equal(new RowFilter({ atom: a, ifTrue: false, ifFalse: true }).probes, undefined);
  assert.deepEqual(
    probesOf(
      new RowFilter({
        atom: a,
        ifTrue: { atom: comparison("<", 9), ifTrue: true, ifFalse: false },
        ifFalse: false,
      }),
    ),
    [
      '{"lower":{"value":{"kind":"number","value":5},"inclusive":false},"upper":{"value":{"kind":"number","value":9},"inclusive":false}}',
    ],
  );
});
