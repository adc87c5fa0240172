import type { TableObserver } from "../../database.ts";
import type { KeyValue, RowImage, TableRead } from "../../keyedAccess.ts";
import { RowFilter } from "../../rowFilter.ts";
import { unfollowed, type WholeReason } from "../../wholeReason.ts";
import { groupedDigits } from "../../../text/groupedDigits.ts";
import {
  predicateFilter,
  scalarOf,
  type Family,
  type FilterValue,
  type Predicate,
} from "./pgFilters.ts";
import type { KeyKind } from "../keyColumns.ts";
import { arrayElements, keysOfTexts, sentText } from "./pgKeys.ts";
import type { PgQueryConfig } from "../pgLibrary.ts";
import type {
  KeySource,
  Lookup,
  PlannedPredicate,
  PlannedRead,
  PlannedValue,
  ScanRows,
} from "./planReads.ts";

/**
 * The most values a lookup records: beyond them, what they key reads whole (a list of a few
 * hundred rows with their names is what this is for, not a join of two big tables).
 */
export const LOOKUP_LIMIT = 1000;

/**
 * The most rows a lookup tests against a filter: beyond them, what they key reads whole, so a
 * run never pays more than this for a lookup.
 */
export const SCAN_LIMIT = 10_000;

const TOO_MANY_VALUES = `more than ${groupedDigits(LOOKUP_LIMIT)} values`;
const TOO_MANY_ROWS = `more than ${groupedDigits(SCAN_LIMIT)} supplying rows`;
/** A page whose rows livecmd is not shown: its table is read whole where it tests nothing. */
const UNSHOWN_PAGE: WholeReason = {
  kind: "page",
  why: "whose rows livecmd does not see (sent through the app's own handle)",
};
const UNSURE = unfollowed(
  "a parameter livecmd cannot be sure how PostgreSQL reads (' 7', a uuid in braces, a Buffer)",
);

/** Runs one of livecmd's own statements where the app's statement runs (its transaction, or the pool). */
export type Query = (config: PgQueryConfig) => Promise<{ rows: unknown[] }>;

/** A page's read as planned, and as told before its statement ran: what `pageReads.ts` narrows. */
export interface ToldPage {
  readonly planned: PlannedRead;
  readonly told: TableRead;
}

/**
 * Tells `observer` what a statement planned as `reads` reads when bound to `params`: by table
 * alone when it matches by table; else its own values' reads, then, once `query` (where the
 * statement runs: its transaction, its connection) read them, the values it looks up. With
 * `narrowing`, a page's read is told so that it can be narrowed once the statement ran (its
 * filter, or every row as a filter); returns those.
 */
export async function reportReads(
  observer: TableObserver,
  reads: readonly PlannedRead[],
  params: readonly unknown[],
  query: Query,
  narrowing = false,
): Promise<readonly ToldPage[]> {
  if (observer.tablesOnly || !narrowing) {
    await tellReads(observer, reads, params, query);
    return [];
  }
  const { now, later, pages } = boundReads(reads, params, narrowing);
  observer.read?.(now);
  if (later.length > 0) observer.read?.(await lookedUpReads(later, params, query));
  return pages;
}

/**
 * `reportReads` of a statement whose pages are not narrowed: told at once when no value must be
 * looked up off other rows (`tellReadsAtOnce`), else once those are read.
 */
export async function tellReads(
  observer: TableObserver,
  reads: readonly PlannedRead[],
  params: readonly unknown[],
  query: Query,
): Promise<void> {
  if (tellReadsAtOnce(observer, reads, params)) return;
  const { now, later } = boundReads(reads, params);
  observer.read?.(now);
  observer.read?.(await lookedUpReads(later, params, query));
}

/**
 * Tells `observer` what a statement planned as `reads` reads bound to `params`, and says so,
 * unless some value must first be looked up off other rows: then nothing is told, and false.
 */
export function tellReadsAtOnce(
  observer: TableObserver,
  reads: readonly PlannedRead[],
  params: readonly unknown[],
): boolean {
  if (observer.tablesOnly) {
    observer.read?.(reads.map(({ table }) => ({ table })));
    return true;
  }
  const { now, later } = boundReads(reads, params);
  if (later.length > 0) return false;
  observer.read?.(now);
  return true;
}

/**
 * The rows a statement planned as `reads` reads when bound to `params`: `now`, what its own
 * values tell (each key source's values as the change feed writes them; a parameter livecmd
 * cannot be sure of makes its table whole; NULL finds no row, so it adds no value), and `later`,
 * the reads whose values it reads off other rows, which `lookedUpReads` resolves; `pages`, the
 * reads of `now` a page narrows once its statement ran, when `narrowing`.
 */
export function boundReads(
  reads: readonly PlannedRead[],
  params: readonly unknown[],
  narrowing = false,
): { now: TableRead[]; later: PlannedRead[]; pages: ToldPage[] } {
  const binding = new Binding(params, new Map(), new Map());
  const now: TableRead[] = [];
  const later: PlannedRead[] = [];
  const pages: ToldPage[] = [];
  for (const read of reads) {
    if (lookupsOf(read).length > 0) later.push(read);
    else if (read.page && narrowing) {
      const told = binding.pageRead(read);
      now.push(told);
      pages.push({ planned: read, told });
    } else now.push(binding.read(read));
  }
  return { now, later, pages };
}

/**
 * The reads of `reads` with the values they look up: read off the rows that supply them by a
 * statement of livecmd's own (`query`), before the app's statement is sent. The supplying rows'
 * own reads were reported before: a write that moves them from then on re-runs the run, and one
 * to a row looked up that is heard before these reads are committed before the app's statement
 * reads it.
 */
export async function lookedUpReads(
  reads: readonly PlannedRead[],
  params: readonly unknown[],
  query: Query,
): Promise<TableRead[]> {
  const values = new Map<string, readonly string[] | undefined>();
  const beyond = new Map<string, string>();
  const binding = new Binding(params, values, beyond);
  const resolve = async (lookup: Lookup): Promise<void> => {
    if (values.has(lookup.id)) return;
    for (const inner of lookupsOfRows(lookup.rows)) await resolve(inner);
    // A lookup that fails leaves its reads whole; the app's statement runs and fails on its own.
    const found = await lookedUpValues(lookup, binding, query).catch(
      () => "the lookup of its values failed",
    );
    values.set(lookup.id, typeof found === "string" ? undefined : found);
    if (typeof found === "string") beyond.set(lookup.id, found);
  };
  for (const read of reads) for (const lookup of lookupsOf(read)) await resolve(lookup);
  return reads.map((read) => binding.read(read));
}

/** The values of one statement's sources: its parameters, and the values it looked up (as text). */
class Binding {
  constructor(
    private readonly params: readonly unknown[],
    private readonly looked: ReadonlyMap<string, readonly string[] | undefined>,
    /** Why a lookup's values could not be told, by lookup. */
    private readonly beyond: ReadonlyMap<string, string>,
  ) {}

  read(read: PlannedRead): TableRead {
    if (read.filter !== undefined)
      return { table: read.table, filter: predicateFilter(this.predicate(read.filter)) };
    if (read.column === undefined)
      return read.page ? { table: read.table, reason: UNSHOWN_PAGE } : read;
    const values = this.keys(read.sources, read.kind);
    if (!values) return { table: read.table, reason: this.#whyNotKeyed(read.sources) };
    const lookedUp = read.sources.flatMap((source) =>
      "lookup" in source ? [`${source.lookup.table}.${source.lookup.column}`] : [],
    );
    return {
      table: read.table,
      column: read.column,
      values,
      ...(lookedUp.length > 0 && { lookedUp: [...new Set(lookedUp)].join(", ") }),
    };
  }

  /** A page's read before its statement ran: its filter, or every row, as a filter a narrower one replaces. */
  pageRead(read: PlannedRead): TableRead {
    return read.filter !== undefined
      ? this.read(read)
      : { table: read.table, filter: new RowFilter(true) };
  }

  #whyNotKeyed(sources: readonly KeySource[]): WholeReason {
    for (const source of sources) {
      if (!("lookup" in source)) continue;
      const beyond = this.beyond.get(source.lookup.id);
      if (beyond !== undefined)
        return { kind: "lookup", from: `${source.lookup.table}.${source.lookup.column}`, beyond };
    }
    return UNSURE;
  }

  /** The keys of `sources` as the change feed writes them; undefined when one cannot be told. */
  keys(sources: readonly KeySource[], kind: KeyKind): KeyValue[] | undefined {
    const values = new Set<KeyValue>();
    for (const source of sources) {
      const keys =
        "value" in source
          ? [source.value]
          : "lookup" in source
            ? keysOfTexts(this.looked.get(source.lookup.id), kind)
            : keysOfTexts(paramTexts(this.params[source.param - 1], source.array), kind);
      if (!keys) return undefined;
      for (const key of keys) values.add(key);
    }
    return [...values];
  }

  predicate(predicate: PlannedPredicate): Predicate {
    switch (predicate.kind) {
      case "and":
      case "or":
        return { kind: predicate.kind, parts: predicate.parts.map((part) => this.predicate(part)) };
      case "compare":
        return {
          ...predicate,
          values: predicate.values.flatMap((value) => this.#values(value, predicate.column.family)),
        };
      case "like": {
        const [pattern] = this.#values(predicate.pattern, "text");
        return { ...predicate, pattern };
      }
      default:
        return predicate;
    }
  }

  /**
   * The comparisons a filter ANDs of a column with one parameter or constant, as SQL that keeps
   * every row the filter keeps (` WHERE t.total > $1::numeric`), with their values: the rows a
   * lookup reads to test against the whole filter.
   */
  within(predicate: PlannedPredicate): { sql: string; values: unknown[] } {
    const parts = predicate.kind === "and" ? predicate.parts : [predicate];
    const sql: string[] = [];
    const values: unknown[] = [];
    for (const part of parts) {
      if (part.kind !== "compare" || part.op === "<>" || part.quantifier !== "one") continue;
      const [value] = part.values;
      if (!value || "lookup" in value || value.type.endsWith("[]")) continue;
      const text = "constant" in value ? value.constant : sentText(this.params[value.param - 1]);
      if (typeof text !== "string") continue;
      values.push(text);
      sql.push(
        `t.${quoteIdentifier(part.column.name)} ${part.op} $${values.length}::${value.type}`,
      );
    }
    return { sql: sql.length > 0 ? ` WHERE ${sql.join(" AND ")}` : "", values };
  }

  /** A planned value's values as a comparison in `family` sees them (an array's elements, a lookup's values). */
  #values(value: PlannedValue, family: Family): FilterValue[] {
    const scalars = (texts: readonly (string | null)[] | undefined, type: string) =>
      texts === undefined
        ? [undefined]
        : texts.map((text) => (text === null ? null : scalarOf(text, family, type)));
    if ("lookup" in value) return scalars(this.looked.get(value.lookup.id), value.type);
    const element = value.type.replace(/\[\]$/, "");
    if ("constant" in value)
      return scalars(
        value.type.endsWith("[]") ? arrayElements(value.constant) : [value.constant],
        element,
      );
    return scalars(paramTexts(this.params[value.param - 1], value.array), element);
  }
}

/** The texts a parameter compares a key with: its own, an array's elements, none for NULL. */
function paramTexts(value: unknown, array: boolean): readonly (string | null)[] | undefined {
  const text = sentText(value);
  if (text === null) return array ? [] : [null];
  if (text === undefined) return undefined;
  return array ? arrayElements(text) : [text];
}

/** The lookups a read needs before it can be bound. */
function lookupsOf(read: PlannedRead): Lookup[] {
  if (read.filter !== undefined) return predicateLookups(read.filter);
  if (read.column === undefined) return [];
  return read.sources.flatMap((source) => ("lookup" in source ? [source.lookup] : []));
}

function predicateLookups(predicate: PlannedPredicate): Lookup[] {
  switch (predicate.kind) {
    case "and":
    case "or":
      return predicate.parts.flatMap(predicateLookups);
    case "compare":
      return predicate.values.flatMap((value) => ("lookup" in value ? [value.lookup] : []));
    case "like":
      return "lookup" in predicate.pattern ? [predicate.pattern.lookup] : [];
    default:
      return [];
  }
}

function lookupsOfRows(rows: ScanRows): Lookup[] {
  if ("whole" in rows) return [];
  if ("filter" in rows) return predicateLookups(rows.filter);
  return rows.keyed.sources.flatMap((source) => ("lookup" in source ? [source.lookup] : []));
}

const ARRAY_TYPES: Readonly<Record<KeyKind, string>> = {
  integer: "bigint[]",
  uuid: "uuid[]",
  text: "text[]",
};

/**
 * The values `lookup.column` holds in the rows its scan reads, as text: of rows by key (the
 * index serves it), of every row, or of every row the scan's filter keeps (tested here, as the
 * live index tests a changed row). Beyond `LOOKUP_LIMIT` values or `SCAN_LIMIT` rows to test, or
 * when the rows cannot be told, why not (a `WholeReason` of kind lookup says it).
 */
async function lookedUpValues(
  lookup: Lookup,
  binding: Binding,
  query: Query,
): Promise<readonly string[] | string> {
  const from = `ONLY ${quoteIdentifier(lookup.schema)}.${quoteIdentifier(lookup.relation)} t`;
  const value = `(t.${quoteIdentifier(lookup.column)})::text`;
  const { rows } = lookup;
  let found: (string | null)[];
  if ("whole" in rows)
    found = await column(
      query,
      `SELECT DISTINCT ${value} AS v FROM ${from} LIMIT ${LOOKUP_LIMIT + 1}`,
      [],
    );
  else if ("keyed" in rows) {
    const keys = binding.keys(rows.keyed.sources, rows.keyed.kind);
    if (!keys) return "supplying rows by a key livecmd cannot be sure of";
    found = await column(
      query,
      `SELECT DISTINCT ${value} AS v FROM ${from} WHERE t.${quoteIdentifier(rows.keyed.column)} = ANY ($1::${ARRAY_TYPES[rows.keyed.kind]}) LIMIT ${LOOKUP_LIMIT + 1}`,
      [keys],
    );
  } else {
    const filter = predicateFilter(binding.predicate(rows.filter));
    const within = binding.within(rows.filter);
    const result = await query({
      text: `SELECT ${value} AS v, (SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each_text(to_jsonb(t)) e) AS image FROM ${from}${within.sql} LIMIT ${SCAN_LIMIT + 1}`,
      values: within.values,
    });
    const scanned = result.rows as { v: string | null; image: RowImage }[];
    if (scanned.length > SCAN_LIMIT) return TOO_MANY_ROWS;
    found = [...new Set(scanned.filter(({ image }) => filter.admits(image)).map(({ v }) => v))];
  }
  const texts = found.filter((text): text is string => text !== null);
  return texts.length > LOOKUP_LIMIT ? TOO_MANY_VALUES : texts;
}

async function column(query: Query, text: string, values: unknown[]): Promise<(string | null)[]> {
  const { rows } = await query({ text, values });
  return (rows as { v: string | null }[]).map(({ v }) => v);
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
