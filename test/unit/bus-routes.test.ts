import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
import type { RowImage, TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { BusSubjects } from "../../packages/livecmd/runtime/db/postgres/bus/busSubjects.ts";
import { caughtUpMarker } from "../../packages/livecmd/runtime/db/postgres/changes/caughtUpMarker.ts";
import { ReadSet } from "../../packages/livecmd/runtime/live/readSet.ts";

const subjects = new BusSubjects("ns");
const KEYS = new Map([["tickets", new Set(["id", "customer_id"])]]);
const keysOf = (table: string) => KEYS.get(table);
const P = "livecmd.ns";
const hashOf = (value: string) => subjects.key("tickets", "id", value).split(".").at(-1)!;

const routes: [rule: string, payload: string, expected: string[]][] = [
  [
    "a row's table, and each key column's value, old and new",
    '{"table":"tickets","rows":[{"id":"7","customer_id":"1"},{"id":"7","customer_id":"2"}]}',
    [
      `${P}.t.tickets`,
      `${P}.k.tickets.id.${hashOf("7")}`,
      `${P}.k.tickets.customer_id.${hashOf("1")}`,
      `${P}.k.tickets.customer_id.${hashOf("2")}`,
    ],
  ],
  [
    "a filter column is no key: it is not routed by value",
    '{"table":"tickets","rows":[{"id":"7","customer_id":"1","status":"open"}]}',
    [
      `${P}.t.tickets`,
      `${P}.k.tickets.id.${hashOf("7")}`,
      `${P}.k.tickets.customer_id.${hashOf("1")}`,
    ],
  ],
  [
    "an image without a key column reaches every key reader of the table",
    '{"table":"tickets","rows":[{"id":"7"}]}',
    [`${P}.t.tickets`, `${P}.w.tickets`, `${P}.k.tickets.id.${hashOf("7")}`],
  ],
  [
    "NULL is found by no lookup: no key route",
    '{"table":"tickets","rows":[{"id":"7","customer_id":null}]}',
    [`${P}.t.tickets`, `${P}.k.tickets.id.${hashOf("7")}`],
  ],
  [
    "rows not known: every reader of the table",
    '{"table":"tickets"}',
    [`${P}.t.tickets`, `${P}.w.tickets`],
  ],
  [
    "a table whose keys the relay does not know: every reader of it",
    '{"table":"notes","rows":[{"id":"1"}]}',
    [`${P}.t.notes`, `${P}.w.notes`],
  ],
  ["DDL: every process", '{"schema":"ALTER TABLE"}', [`${P}.all`]],
  ["a caught-up marker: every process (its own tells it apart)", caughtUpMarker(3), [`${P}.all`]],
  [
    "a name outside letters, digits and _ is one token, in hex",
    '{"table":"my.table *"}',
    [`${P}.t.~6d792e7461626c65202a`, `${P}.w.~6d792e7461626c65202a`],
  ],
];

for (const [rule, payload, expected] of routes)
  test(`bus routes: ${rule}`, () => {
    assert.deepEqual(subjects.routesOf(payload, keysOf).sort(), expected.sort());
  });

test("bus routes: a value's hash is 12 hex digits, the same for the same value, whatever it holds", () => {
  assert.match(hashOf("a.b *>"), /^[0-9a-f]{12}$/);
  assert.equal(hashOf("x"), hashOf("x"));
  assert.notEqual(hashOf("1"), hashOf("2"));
});

test("bus routes: a run that read every table listens on every table's subject", () => {
  const reads = new ReadSet("rows");
  reads.seeNothing();
  assert.deepEqual(subjects.interestOf(reads), [{ subject: `${P}.t.*`, table: ANY_TABLE }]);
});

const TABLES = ["tickets", "orders"];
const COLUMNS = ["id", "customer_id"];
const value = fc.constantFrom("1", "2", "3", null);
const image = fc.record(
  { id: value, customer_id: value },
  { requiredKeys: [] },
) as fc.Arbitrary<RowImage>;
const change = fc.record(
  {
    table: fc.constantFrom(...TABLES, ANY_TABLE),
    rows: fc.array(image, { maxLength: 3 }),
  },
  { requiredKeys: ["table"] },
) as fc.Arbitrary<TableChange>;
const read = fc.oneof(
  fc.record({ table: fc.constantFrom(...TABLES) }),
  fc.record({
    table: fc.constantFrom(...TABLES),
    column: fc.constantFrom(...COLUMNS),
    values: fc.array(fc.constantFrom("1", "2", "3"), { minLength: 1, maxLength: 2 }),
  }),
);

test("bus routes: every change that touches a read a process watches is published on a subject it listens on", () => {
  const keysOfEvery = () => new Set(COLUMNS);
  fc.assert(
    fc.property(change, fc.array(read, { minLength: 1, maxLength: 4 }), (changed, told) => {
      const reads = new ReadSet("rows");
      reads.add(told);
      if (!reads.touchedBy(changed)) return;
      const heard = new Set(subjects.interestOf(reads).map(({ subject }) => subject));
      heard.add(subjects.all);
      const published = subjects.routesOfChange(changed, keysOfEvery);
      assert.ok(
        published.some((subject) => heard.has(subject)),
        `${JSON.stringify(changed)} is published on ${published.join(", ")}, heard on ${[...heard].join(", ")}`,
      );
    }),
    { numRuns: 2_000 },
  );
});
