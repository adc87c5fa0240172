import { ANY_TABLE } from "../db/anyTable.ts";
import type { KeyValue, TableChange } from "../db/keyedAccess.ts";
import type { AppDatabase } from "../db/database.ts";
import { wholeReasonText, type WholeReason } from "../db/wholeReason.ts";
import type { ReadSet } from "./readSet.ts";

/**
 * Why a change re-runs what a run read: a row it read by key (`customers.id = 7`), or by a key
 * it looked up off other rows (`patients.id = 3`, looked up from `appointments.patient_id`), a
 * row its filter keeps before or after the write (`orders where total > 10000`), a table it read
 * whole (and why the plan reads it so), a change that names no rows of a table it read by key or
 * filter, or every table. What `LIVECMD_DEBUG=live` tells of each re-run.
 */
export type RerunCause =
  | {
      readonly kind: "key";
      readonly table: string;
      readonly column: string;
      readonly value: KeyValue;
      /** Where the statement read the values it looked this table up by (a join). */
      readonly lookedUp?: readonly string[];
    }
  | { readonly kind: "filter"; readonly table: string; readonly filter: string }
  | { readonly kind: "whole table"; readonly table: string; readonly reason?: WholeReason }
  | { readonly kind: "rows unknown"; readonly table: string }
  | { readonly kind: "every table"; readonly reason?: WholeReason };

/** Why `change` touches what `reads` read, or undefined when it does not (as `ReadSet.touchedBy`). */
export function causeOf(reads: ReadSet, change: TableChange): RerunCause | undefined {
  if (change.table === ANY_TABLE) return { kind: "every table" };
  if (reads.whole.has(ANY_TABLE))
    return withReason({ kind: "every table" }, reads.reasons.get(ANY_TABLE));
  if (reads.whole.has(change.table))
    return withReason(
      { kind: "whole table", table: change.table },
      reads.reasons.get(change.table),
    );
  const { table } = change;
  const columns = reads.keyed.get(table);
  const filters = reads.filtered.get(table) ?? [];
  if (!columns && filters.length === 0) return undefined;
  if (!change.rows) return { kind: "rows unknown", table };
  for (const image of change.rows) {
    for (const [column, values] of columns ?? []) {
      const value = image[column];
      if (value === undefined) return { kind: "rows unknown", table };
      if (value === null || !values.has(value)) continue;
      const from = reads.lookedUp.get(table)?.get(column);
      return { kind: "key", table, column, value, ...(from && { lookedUp: [...from] }) };
    }
    const filter = filters.find((each) => each.admits(image));
    if (filter) return { kind: "filter", table, filter: filter.text };
  }
  return undefined;
}

/**
 * `customers.id = 7`, `patients.id = 3 (looked up from appointments.patient_id)`, `orders where
 * total > 10000`, `whole table customers: LIKE on name`.
 */
export function causeText(cause: RerunCause, valueText: (value: KeyValue) => string): string {
  switch (cause.kind) {
    case "key": {
      const from = cause.lookedUp ? ` (looked up from ${cause.lookedUp.join(", ")})` : "";
      return `${cause.table}.${cause.column} = ${valueText(cause.value)}${from}`;
    }
    case "filter":
      return `${cause.table} where ${cause.filter}`;
    case "whole table":
      return `whole table ${cause.table}${cause.reason ? `: ${wholeReasonText(cause.reason)}` : ""}`;
    case "rows unknown":
      return `${cause.table}, a change that names no rows (a truncate, app.changed, or too many to carry)`;
    case "every table":
      return `every table${cause.reason ? `: ${wholeReasonText(cause.reason)}` : ""}`;
  }
}

/** How a key value of `db` is written for a person, as its driver says: SQL on SQLite (`7`, `'ada'`), JSON otherwise. */
export function keyValueText(db: Pick<AppDatabase, "keyText">): (value: KeyValue) => string {
  return (value) => db.keyText(value);
}

function withReason<T extends RerunCause>(cause: T, reason: WholeReason | undefined): T {
  return reason ? { ...cause, reason } : cause;
}
