import type { TableRead } from "../../keyedAccess.ts";
import { both, RowFilter } from "../../rowFilter.ts";
import type { ToldPage } from "./boundReads.ts";
import { predicateFilter, scalarOf, type Predicate } from "./pgFilters.ts";
import { sentText } from "./pgKeys.ts";
import type { PlannedPage } from "./planPage.ts";

/** What a statement returned: its rows, and its columns in order (node-postgres's `fields`). */
export interface ReturnedRows {
  readonly rows: readonly unknown[];
  readonly fields?: readonly { readonly name: string }[];
}

/**
 * The reads of pages told before their statement ran (`pages`), once it ran and returned
 * `returned`: each narrowed to the rows up to its last returned row's key when it was full, its
 * filter (or every row) when not; only those that changed, with what they were told as.
 */
export function pageReads(
  pages: readonly ToldPage[],
  params: readonly unknown[],
  returned: ReturnedRows,
): { told: TableRead[]; reads: TableRead[] } {
  const told: TableRead[] = [];
  const reads: TableRead[] = [];
  for (const page of pages) {
    const read = narrowed(page, params, returned);
    if (read === page.told) continue;
    told.push(page.told);
    reads.push(read);
  }
  return { told, reads };
}

/**
 * A full page's read: the rows whose key is at most (descending: at least) the last returned
 * row's, ties included, and NULLs where the sort puts them first, that its filter keeps. The key
 * is read off that row by its column's position (its name must be the only one of its kind, or
 * the row object holds another), and must tell its value exactly (a Date does not).
 */
function narrowed(
  { planned, told }: ToldPage,
  params: readonly unknown[],
  { rows, fields }: ReturnedRows,
): TableRead {
  const page = planned.page!;
  const broad: TableRead =
    planned.filter === undefined && planned.column === undefined
      ? { table: planned.table, ...(planned.reason && { reason: planned.reason }) }
      : told;
  const count = limitCount(page.limit, params);
  if (count === undefined || count === 0n || BigInt(rows.length) !== count) return broad;
  const field = fields?.[page.column];
  if (!field)
    return planned.filter === undefined
      ? {
          table: planned.table,
          reason: {
            kind: "page",
            why: `whose rows do not return the key it is sorted by (${page.key.name})`,
          },
        }
      : told;
  const last = rows.at(-1) as Record<string, unknown>;
  const text =
    fields!.filter(({ name }) => name === field.name).length === 1 && keyText(last[field.name]);
  const value = text ? scalarOf(text, page.key.family, page.key.type) : undefined;
  if (!value) return broad;
  const edge: Predicate = {
    kind: "compare",
    column: page.key,
    op: page.descending ? ">=" : "<=",
    quantifier: "one",
    values: [value],
  };
  const bound = predicateFilter(
    page.nullsFirst
      ? { kind: "or", parts: [edge, { kind: "null", column: page.key, negated: false }] }
      : edge,
  );
  return {
    table: planned.table,
    filter:
      planned.filter === undefined || !told.filter
        ? bound
        : new RowFilter(both(bound.decision, told.filter.decision)),
  };
}

/** The LIMIT's value, when it is a count (NULL, as `LIMIT ALL`, is none). */
function limitCount(limit: PlannedPage["limit"], params: readonly unknown[]): bigint | undefined {
  if ("constant" in limit) return limit.constant;
  const text = sentText(params[limit.param - 1]);
  return typeof text === "string" && /^\d+$/.test(text) ? BigInt(text) : undefined;
}

/** A returned value as PostgreSQL wrote it, where node-postgres keeps it exactly. */
function keyText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  return undefined;
}
