import { ANY_TABLE } from "../db/anyTable.ts";
import type { KeyValue, TableChange, TableRead } from "../db/keyedAccess.ts";
import type { RowFilter } from "../db/rowFilter.ts";
import type { WholeReason } from "../db/wholeReason.ts";

/**
 * What to do about a live command whose run made no statement livecmd saw (`ReadSet.unseen`),
 * said on the log when it is first watched and by `livecmd inspect --reads`.
 */
export const UNSEEN_FIX =
  "give livecmd the handle it reads through (defineApp({ database: () => handle }), or postgres(pool)), or call app.changed(table) when what it reads changes";

/**
 * What is said instead where the app has no database: livecmd then sees no write at all, so a
 * watch changes only when the app says so.
 */
export const NO_DATABASE =
  "the app has no database, so livecmd sees no write: only app.changed(table) re-runs a watch of it; give defineApp({ database }) the handle its commands read through";

/** Whether reads are matched to changes row by row, or by table (the oracle the row matching is tested against). */
export type Matching = "rows" | "tables";

/**
 * What one run read: per table, every row, or the values of key columns it looked rows up by and
 * the filters it kept rows by. A table read whole anywhere in the run is whole, whatever keys or
 * filters it was also read by.
 */
export class ReadSet {
  readonly whole = new Set<string>();
  readonly keyed = new Map<string, Map<string, Set<KeyValue>>>();
  /** How many statements the run made that livecmd saw (one that reads no table included). */
  statements = 0;
  // Made on first use: most runs read by key alone, and every watched group holds one of these.
  #filtered: Map<string, RowFilter[]> | undefined;
  #reasons: Map<string, WholeReason> | undefined;
  #lookedUp: Map<string, Map<string, Set<string>>> | undefined;

  constructor(private readonly matching: Matching) {}

  /** The filters each table was read through. */
  get filtered(): ReadonlyMap<string, readonly RowFilter[]> {
    return this.#filtered ?? NONE;
  }

  /** Why tables are read whole, as the first statement reading each so said. */
  get reasons(): ReadonlyMap<string, WholeReason> {
    return this.#reasons ?? NONE;
  }

  /** Where the values of keyed columns were looked up (`appointments.patient_id`), by table and column. */
  get lookedUp(): ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>> {
    return this.#lookedUp ?? NONE;
  }

  get empty(): boolean {
    return this.whole.size === 0 && this.keyed.size === 0 && this.filtered.size === 0;
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
    this.#filtered = undefined;
    this.#lookedUp = undefined;
  }

  /** What one statement read. */
  add(reads: readonly TableRead[]): void {
    this.statements += 1;
    this.#add(reads);
  }

  /**
   * Reads `add` was told (`told`, those objects) narrowed now that their statement ran: each
   * filter told gives way to what the statement read (a table made whole meanwhile stays so).
   */
  narrow(told: readonly TableRead[], reads: readonly TableRead[]): void {
    for (const { table, filter } of told) {
      const filters = filter && this.#filtered?.get(table);
      const at = filters ? filters.indexOf(filter!) : -1;
      if (at < 0) continue;
      filters!.splice(at, 1);
      if (filters!.length === 0) this.#filtered!.delete(table);
    }
    this.#add(reads);
  }

  #add(reads: readonly TableRead[]): void {
    for (const read of reads) {
      if (this.whole.has(read.table)) continue;
      if (read.filter) {
        if (this.matching === "tables") this.#whole(read.table);
        else entry((this.#filtered ??= new Map()), read.table, () => []).push(read.filter);
        continue;
      }
      if (read.column === undefined || this.matching === "tables") {
        this.#whole(read.table);
        const reason = read.column === undefined ? reasonOf(read) : undefined;
        if (reason) (this.#reasons ??= new Map()).set(read.table, reason);
        continue;
      }
      const values = entry(
        entry(this.keyed, read.table, () => new Map()),
        read.column,
        () => new Set(),
      );
      for (const value of read.values) values.add(value);
      if (read.lookedUp !== undefined)
        entry(
          entry((this.#lookedUp ??= new Map()), read.table, () => new Map()),
          read.column,
          () => new Set(),
        ).add(read.lookedUp);
    }
  }

  /** Whether `change` touches a row this run read (a run still in progress, which the index does not hold). */
  touchedBy(change: TableChange): boolean {
    if (change.table === ANY_TABLE || this.whole.has(ANY_TABLE) || this.whole.has(change.table))
      return true;
    const columns = this.keyed.get(change.table);
    const filters = this.filtered.get(change.table);
    if (!columns && !filters) return false;
    if (!change.rows) return true;
    return change.rows.some(
      (image) =>
        [...(columns ?? [])].some(([column, values]) => {
          const value = image[column];
          return value === undefined || (value !== null && values.has(value));
        }) || (filters ?? []).some((filter) => filter.admits(image)),
    );
  }

  #whole(table: string): void {
    this.whole.add(table);
    this.keyed.delete(table);
    this.#filtered?.delete(table);
    this.#lookedUp?.delete(table);
  }
}

const NONE: ReadonlyMap<string, never> = new Map<string, never>();

function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** Why a read is whole: the plan's reason, else what livecmd says of the table (`because`). */
function reasonOf(read: { reason?: WholeReason; because?: string }): WholeReason | undefined {
  return read.reason ?? (read.because ? { kind: "unknown", what: read.because } : undefined);
}
