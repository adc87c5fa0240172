import { ANY_TABLE } from "../db/anyTable.ts";
import type { ChangeInterest } from "../db/changeInterest.ts";
import type { KeyValue, TableChange } from "../db/keyedAccess.ts";
import { FilterIndex } from "./filterIndex.ts";
import type { ReadSet } from "./readSet.ts";

/**
 * Which groups read what: whole-table readers by table, key readers by (table, column, value),
 * filtered readers through a `FilterIndex`. A change is looked up by the values of the rows it
 * touched, so a write costs what it changed, not what is watched: a change to tickets 7 finds the
 * readers of tickets.rowid 7, the filters that keep ticket 7 before or after, and the whole-table
 * readers of tickets, and nobody watching ticket 9. Where changes are routed to a process by
 * what it watches (a bus), `interest` is told every read set held and let go.
 */
export class ReadIndex<Group> {
  readonly #whole = new Map<string, Set<Group>>();
  readonly #keyed = new Map<string, Map<string, Map<KeyValue, Set<Group>>>>();
  readonly #filters = new FilterIndex<Group>();

  constructor(private readonly interest: () => ChangeInterest | undefined = () => undefined) {}

  add(group: Group, reads: ReadSet): void {
    this.interest()?.add(reads);
    for (const table of reads.whole) entry(this.#whole, table, () => new Set()).add(group);
    for (const [table, columns] of reads.keyed) {
      const byColumn = entry(this.#keyed, table, () => new Map());
      for (const [column, values] of columns) {
        const byValue = entry(byColumn, column, () => new Map());
        for (const value of values) entry(byValue, value, () => new Set()).add(group);
      }
    }
    for (const [table, filters] of reads.filtered)
      for (const filter of filters) this.#filters.add(group, table, filter);
  }

  remove(group: Group, reads: ReadSet): void {
    this.interest()?.remove(reads);
    for (const table of reads.whole) removeFrom(this.#whole, table, group);
    for (const [table, columns] of reads.keyed) {
      const byColumn = this.#keyed.get(table);
      for (const [column, values] of columns) {
        const byValue = byColumn?.get(column);
        for (const value of values) if (byValue) removeFrom(byValue, value, group);
        if (byValue?.size === 0) byColumn!.delete(column);
      }
      if (byColumn?.size === 0) this.#keyed.delete(table);
    }
    for (const [table, filters] of reads.filtered)
      for (const filter of filters) this.#filters.remove(group, table, filter);
  }

  /** Adds to `affected` every group that read a row `change` touched (or its whole table). */
  collect(change: TableChange, affected: Set<Group>): void {
    for (const table of [change.table, ANY_TABLE])
      for (const group of this.#whole.get(table) ?? []) affected.add(group);
    this.#filters.collect(change, affected);
    const byColumn = this.#keyed.get(change.table);
    if (!byColumn) return;
    if (!change.rows) {
      for (const byValue of byColumn.values())
        for (const groups of byValue.values()) for (const group of groups) affected.add(group);
      return;
    }
    for (const image of change.rows)
      for (const [column, byValue] of byColumn) {
        const value = image[column];
        if (value === undefined)
          for (const groups of byValue.values()) for (const group of groups) affected.add(group);
        else if (value !== null) for (const group of byValue.get(value) ?? []) affected.add(group);
      }
  }
}

function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

function removeFrom<K, G>(map: Map<K, Set<G>>, key: K, group: G): void {
  const groups = map.get(key);
  groups?.delete(group);
  if (groups?.size === 0) map.delete(key);
}
