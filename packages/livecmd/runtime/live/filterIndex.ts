import type { RowImage, TableChange } from "../db/keyedAccess.ts";
import type { RowFilter, View } from "../db/rowFilter.ts";
import { scalarKey } from "../db/scalar.ts";
import { IntervalTree } from "./intervalTree.ts";

/** One group's filter of one table. */
interface Entry<Group> {
  readonly group: Group;
  readonly filter: RowFilter;
}

/** The probes of one view of a table: equalities by value, ranges in an interval tree. */
interface ViewProbes<Group> {
  readonly view: View;
  readonly byValue: Map<string, Set<Entry<Group>>>;
  readonly ranges: IntervalTree<Entry<Group>>;
  /** Every filter with a probe here (each once per probe), for an image that cannot tell the view's value. */
  readonly members: Map<Entry<Group>, number>;
}

interface TableFilters<Group> {
  readonly views: Map<string, ViewProbes<Group>>;
  /** Filters no probe is known for: each tested against every changed row. */
  readonly unprobed: Set<Entry<Group>>;
  /** What removes each group's filters from the index. */
  readonly removers: Map<Group, Map<RowFilter, (() => void)[]>>;
}

/**
 * Which groups read a table through a filter, found from a changed row the way a database finds
 * rows: a filter with an equality probe (`status = 'open'`) by the row's value, one with a range
 * probe (`total > 10000`) through an interval tree, so a change costs the filters it may
 * concern; then each found is tested against the row (old and new). Filters with no probe are
 * tested one by one.
 */
export class FilterIndex<Group> {
  readonly #tables = new Map<string, TableFilters<Group>>();

  add(group: Group, table: string, filter: RowFilter): void {
    const filters = entry(this.#tables, table, () => ({
      views: new Map(),
      unprobed: new Set(),
      removers: new Map(),
    }));
    const item: Entry<Group> = { group, filter };
    const removers: (() => void)[] = [];
    if (!filter.probes) {
      filters.unprobed.add(item);
      removers.push(() => filters.unprobed.delete(item));
    }
    for (const probe of filter.probes ?? []) {
      const probes = entry(filters.views, probe.view.id, () => ({
        view: probe.view,
        byValue: new Map(),
        ranges: new IntervalTree(),
        members: new Map(),
      }));
      probes.members.set(item, (probes.members.get(item) ?? 0) + 1);
      const unheld = () => {
        const count = probes.members.get(item)! - 1;
        if (count > 0) probes.members.set(item, count);
        else probes.members.delete(item);
        if (probes.members.size === 0) filters.views.delete(probe.view.id);
      };
      if ("within" in probe) {
        const remove = probes.ranges.add(probe.within, item);
        removers.push(() => (remove(), unheld()));
        continue;
      }
      const keys = new Set(probe.equals.map(scalarKey));
      for (const key of keys) entry(probes.byValue, key, () => new Set()).add(item);
      removers.push(() => {
        for (const key of keys) removeFrom(probes.byValue, key, item);
        unheld();
      });
    }
    const byFilter = entry(filters.removers, group, () => new Map());
    byFilter.set(filter, [...(byFilter.get(filter) ?? []), ...removers]);
  }

  remove(group: Group, table: string, filter: RowFilter): void {
    const filters = this.#tables.get(table);
    const byFilter = filters?.removers.get(group);
    for (const remove of byFilter?.get(filter) ?? []) remove();
    byFilter?.delete(filter);
    if (byFilter?.size === 0) filters!.removers.delete(group);
    if (filters?.removers.size === 0) this.#tables.delete(table);
  }

  /** Adds to `affected` every group with a filter that keeps a row `change` touched, before or after. */
  collect(change: TableChange, affected: Set<Group>): void {
    const filters = this.#tables.get(change.table);
    if (!filters) return;
    if (!change.rows) {
      for (const group of filters.removers.keys()) affected.add(group);
      return;
    }
    for (const image of change.rows)
      for (const { group, filter } of candidates(filters, image))
        if (!affected.has(group) && filter.admits(image)) affected.add(group);
  }
}

/** The filters that may keep the row `image` shows: found by its values, and the unprobed. */
function candidates<Group>(filters: TableFilters<Group>, image: RowImage): Set<Entry<Group>> {
  const found = new Set(filters.unprobed);
  const add = (item: Entry<Group>) => found.add(item);
  for (const { view, byValue, ranges, members } of filters.views.values()) {
    const value = view.of(image);
    if (value === null) continue;
    if (value === undefined) {
      for (const item of members.keys()) add(item);
      continue;
    }
    byValue.get(scalarKey(value))?.forEach(add);
    ranges.stab(value, add);
  }
  return found;
}

function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, item: V): void {
  const items = map.get(key);
  items?.delete(item);
  if (items?.size === 0) map.delete(key);
}
