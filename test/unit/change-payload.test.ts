import assert from "node:assert/strict";
import { test } from "node:test";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
import { changeOfPayload } from "../../packages/livecmd/runtime/db/postgres/changes/changePayload.ts";

// Anyone who may NOTIFY on the change feed's channel can send anything: a payload never
// drops a change, it widens it.
const cases = [
  [
    "rows of a table",
    '{"table":"t","rows":[{"id":"1"},{"id":null}]}',
    { table: "t", rows: [{ id: "1" }, { id: null }] },
  ],
  ["a table whose rows are not known", '{"table":"t"}', { table: "t" }],
  ["DDL: every table", '{"schema":"ALTER TABLE"}', { table: ANY_TABLE }],
  ["a table name, as earlier feeds sent it", "orders", { table: "orders" }],
  ["rows that are not a list: any row of the table", '{"table":"t","rows":5}', { table: "t" }],
  [
    "an image that is not an object: any row of the table",
    '{"table":"t","rows":[1]}',
    { table: "t" },
  ],
  ["an image that is a list: any row of the table", '{"table":"t","rows":[["1"]]}', { table: "t" }],
  [
    "a key value that is not text: any row of the table",
    '{"table":"t","rows":[{"id":1}]}',
    { table: "t" },
  ],
  ["JSON that names no table: every table", '{"tables":"t"}', { table: ANY_TABLE }],
  ["a table that is not text: every table", '{"table":7}', { table: ANY_TABLE }],
  ["JSON that does not parse: every table", '{"table":"t"', { table: ANY_TABLE }],
  ["an empty object: every table", "{}", { table: ANY_TABLE }],
] as const;

for (const [rule, payload, change] of cases)
  test(`a change-feed payload: ${rule}`, () => {
    assert.deepEqual(changeOfPayload(payload), change);
  });
