import type { RowFilter } from "./rowFilter.ts";
import type { WholeReason } from "./wholeReason.ts";

/**
 * A value as the database compares it, encoded so that two values the database holds equal in
 * a column (under that column's type, affinity and collation) encode the same, and values it
 * holds different encode differently. Each driver encodes its own values; the reads and the
 * changes of one database always come from the same driver, so only equality matters.
 */
export type KeyValue = string;

/**
 * How a run read one table: every row (`column` and `filter` absent), only the rows whose
 * `column` holds one of `values` (what a statement that looks the table up by `column = ?` or
 * `IN (...)` can see, or by values it read off other rows: `lookedUp` names where), or only rows
 * a `filter` keeps (a scan whose conditions compare columns with values). A run that read a table
 * whole anywhere read it whole: a change to any row counts. `reason` says why the plan reads it
 * whole; `because`, why livecmd may not hear of every change to it (a foreign table), or why it
 * is every table (`ANY_TABLE`: a function whose reads the plan does not show).
 */
export type TableRead =
  | {
      readonly table: string;
      readonly column?: undefined;
      readonly filter?: undefined;
      readonly because?: string;
      readonly reason?: WholeReason;
    }
  | {
      readonly table: string;
      readonly column: string;
      readonly values: readonly KeyValue[];
      readonly lookedUp?: string;
      readonly filter?: undefined;
    }
  | { readonly table: string; readonly column?: undefined; readonly filter: RowFilter };

/**
 * A row as it was before or after a write: the values of its key columns (those a read may look
 * the table up by) and of the columns filters compare, each as its driver writes it. `null` is
 * SQL NULL, which no key lookup finds. A keyed read whose column an image does not carry counts
 * as changed, whatever value it read; so does a filter that needs a column the image lacks.
 */
export type RowImage = Readonly<Record<string, KeyValue | null>>;

/**
 * What one committed write changed in one table: the images of every row it inserted, updated
 * (before and after) or deleted; `rows` absent when which rows is not known (a truncate, a change
 * reported by the app, a notification too large to carry them): then every reader of the table
 * counts as changed.
 */
export interface TableChange {
  readonly table: string;
  readonly rows?: readonly RowImage[];
}

/** A change to rows of `table` that are not known: every reader of it counts as changed. */
export function anyRowsOf(table: string): TableChange {
  return { table };
}
