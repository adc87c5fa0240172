import { ANY_TABLE } from "../db/anyTable.ts";
import type { KeyValue, TableChange, TableRead } from "../db/keyedAccess.ts";
import type { WholeReason } from "../db/wholeReason.ts";

/**
 * What to do about a live command whose run made no statement livecmd saw (`ReadSet.unseen`),
 * said on the log when it is first watched and by `livecmd inspect --reads`.
 */
export const UNSEEN_FIX =
  "give livecmd the handle it reads through (defineApp({ database: () => handle }), or postgres(pool)), or call app.changed(table) when what it reads changes";

/** Whether reads are matched to changes row by row, or by table (the oracle the row matching is tested against). */
export type Matching = "rows" | "tables";

/**
 * What one run read: per table, every row, or the values of key columns it looked rows up by.
 * A table read whole anywhere in the run is whole, whatever keys it was also looked up by.
 */
export class ReadSet {
  readonly whole = new Set<string>();
  readonly keyed = new Map<string, Map<string, Set<KeyValue>>>();
  /** How many statements the run made that livecmd saw (one that reads no table included). */
  statements = 0;
  /** Why tables are read whole, as the first statement reading each so said. */
  readonly reasons = new Map<string, WholeReason>();

  constructor(private readonly matching: Matching) {}

  get empty(): boolean {
    return this.whole.size === 0 && this.keyed.size === 0;
  }

  /**
   * Whether the run made no statement livecmd saw: it read through a handle livecmd was never
   * given, a file, a service, or nothing. What it depends on cannot be told, so it is watched as
   * reading every table (`seeNothing`).
   */
  get unseen(): boolean {
    return this.statements === 0;
  }

  /** Watches a run that made no statement livecmd saw as one that read every table: any write re-runs it. */
  seeNothing(): void {
    this.whole.add(ANY_TABLE);
    this.keyed.clear();
  }

  /** What one statement read. */
  add(reads: readonly TableRead[]): void {
    this.statements += 1;
    for (const read of reads) {
      if (this.whole.has(read.table)) continue;
      if (read.column === undefined || this.matching === "tables") {
        this.whole.add(read.table);
        const reason = read.column === undefined ? reasonOf(read) : undefined;
        if (reason) this.reasons.set(read.table, reason);
        this.keyed.delete(read.table);
        continue;
      }
      let columns = this.keyed.get(read.table);
      if (!columns) this.keyed.set(read.table, (columns = new Map()));
      let values = columns.get(read.column);
      if (!values) columns.set(read.column, (values = new Set()));
      for (const value of read.values) values.add(value);
    }
  }

  /** Whether `change` touches a row this run read (a run still in progress, which the index does not hold). */
  touchedBy(change: TableChange): boolean {
    if (change.table === ANY_TABLE || this.whole.has(ANY_TABLE) || this.whole.has(change.table))
      return true;
    const columns = this.keyed.get(change.table);
    if (!columns) return false;
    if (!change.rows) return true;
    return change.rows.some((image) =>
      [...columns].some(([column, values]) => {
        const value = image[column];
        return value === undefined || (value !== null && values.has(value));
      }),
    );
  }
}

/** Why a read is whole: the plan's reason, else what livecmd says of the table (`because`). */
function reasonOf(read: TableRead & { column?: undefined }): WholeReason | undefined {
  return read.reason ?? (read.because ? { kind: "unknown", what: read.because } : undefined);
}
