import { createHash } from "node:crypto";
import { ANY_TABLE } from "../../anyTable.ts";
import type { WatchedReads } from "../../changeInterest.ts";
import type { KeyValue, TableChange } from "../../keyedAccess.ts";
import { isCaughtUpMarker } from "../changes/caughtUpMarker.ts";
import { changeOfPayload } from "../changes/changePayload.ts";

/** A subject a process listens on, and the table whose changes it brings (`ANY_TABLE`: all). */
export interface Route {
  readonly subject: string;
  readonly table: string;
}

/**
 * The subjects of one database on the bus, under `livecmd.<namespace>`:
 * - `all`: changes to every table (DDL, a new slot) and caught-up markers; every process hears it;
 * - `beat`: the relay's heartbeat, with its position; every process hears it;
 * - `t.<table>`: every change to the table (heard by readers of it whole or through filters);
 * - `w.<table>`: a change to it whose rows, or some row's key, are not known (heard by key readers);
 * - `k.<table>.<column>.<hash>`: a change to a row whose key column held a value, old or new;
 * - `log`: the JetStream stream's one subject, every change once, by its position (replays).
 */
export class BusSubjects {
  readonly all: string;
  readonly beat: string;
  readonly log: string;
  /** Every table's subject at once (a run that read every table). */
  readonly everyTable: string;
  /** The JetStream stream of the database's changes. */
  readonly stream: string;
  readonly #prefix: string;

  constructor(namespace: string) {
    this.#prefix = `livecmd.${namespace}`;
    this.all = `${this.#prefix}.all`;
    this.beat = `${this.#prefix}.beat`;
    this.log = `${this.#prefix}.log`;
    this.everyTable = `${this.#prefix}.t.*`;
    this.stream = `LIVECMD_${namespace}`;
  }

  table(table: string): string {
    return table === ANY_TABLE ? this.everyTable : `${this.#prefix}.t.${token(table)}`;
  }

  unknownRows(table: string): string {
    return `${this.#prefix}.w.${token(table)}`;
  }

  key(table: string, column: string, value: KeyValue): string {
    return `${this.#prefix}.k.${token(table)}.${token(column)}.${valueHash(value)}`;
  }

  /** The routes a process watching `reads` listens on (beside `all` and `beat`). */
  interestOf(reads: WatchedReads): Route[] {
    const routes: Route[] = [];
    for (const table of [...reads.whole, ...reads.filtered.keys()])
      routes.push({ subject: this.table(table), table });
    for (const [table, columns] of reads.keyed) {
      routes.push({ subject: this.unknownRows(table), table });
      for (const [column, values] of columns)
        for (const value of values) routes.push({ subject: this.key(table, column, value), table });
    }
    return routes;
  }

  /**
   * The subjects one payload of the change feed is published on: every reader of a row it
   * touched hears it on at least one. `keysOf(table)` names the columns reads may look `table`
   * up by (the relay's relations); an image without one of them reaches every key reader.
   */
  routesOf(payload: string, keysOf: (table: string) => ReadonlySet<string> | undefined): string[] {
    if (isCaughtUpMarker(payload)) return [this.all];
    return this.routesOfChange(changeOfPayload(payload), keysOf);
  }

  routesOfChange(
    change: TableChange,
    keysOf: (table: string) => ReadonlySet<string> | undefined,
  ): string[] {
    if (change.table === ANY_TABLE) return [this.all];
    const routes = new Set([this.table(change.table)]);
    const keys = keysOf(change.table);
    if (!change.rows || !keys) routes.add(this.unknownRows(change.table));
    for (const image of change.rows ?? [])
      for (const column of keys ?? []) {
        const value = image[column];
        if (value === undefined) routes.add(this.unknownRows(change.table));
        else if (value !== null) routes.add(this.key(change.table, column, value));
      }
    return [...routes];
  }
}

/**
 * A table's or column's name as one subject token: as it is when it is letters, digits and
 * underscores, else `~` and its UTF-8 bytes in hex (a token holds no `.`, `*`, `>` or space, and
 * no plain name starts with `~`, so two names never share a token).
 */
function token(name: string): string {
  return /^[A-Za-z0-9_]+$/.test(name) ? name : `~${Buffer.from(name, "utf8").toString("hex")}`;
}

/**
 * A key value as 12 hex digits of its SHA-1: values are of any length and hold any character; a
 * collision of two values costs a process one change it did not need, never one it did.
 */
function valueHash(value: KeyValue): string {
  return createHash("sha1").update(value).digest("hex").slice(0, 12);
}
