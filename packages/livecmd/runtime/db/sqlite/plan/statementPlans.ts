import type { KeyValue, TableRead } from "../../keyedAccess.ts";
import type { RowFilter } from "../../rowFilter.ts";
import { unfollowed, type WholeReason } from "../../wholeReason.ts";
import { lookedUpValues, type BoundFilter, type BoundRows } from "./lookedUpValues.ts";
import type { PlannedAtom, PlannedDecision } from "./planFilters.ts";
import {
  type KeySource,
  type Lookup,
  type PagedRead,
  type PlannedRead,
  type PlannedRows,
} from "./planReads.ts";
import { imageColumnsOf, type ImageColumns } from "../changes/rowImages.ts";
import type { SqliteConnection, SqliteStatement } from "../sqliteConnection.ts";
import type { Operand } from "./sqliteCompare.ts";
import { boundFilter, converted, type FilterBinding } from "./sqliteFilters.ts";
import { boundKey, boundValue, type Typed } from "../sqliteKeys.ts";
import type { KeyColumn, SqliteSchema } from "../sqliteSchema.ts";
import type { StatementPlan } from "./planStatement.ts";

const UNCOMPARABLE = unfollowed("a key value livecmd cannot compare as SQLite would");

/**
 * Statement plans, read off SQLite's own program for each statement (`EXPLAIN`) once per SQL
 * text, until the schema changes (root pages and indexes move then).
 */
export class StatementPlans {
  readonly #cache = new Map<string, StatementPlan>();
  readonly #statements = new Map<string, SqliteStatement>();
  #columns: ImageColumns | undefined;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly schema: () => SqliteSchema,
    /** Reads a statement's plan (`SqliteDialect.planReads`), asked once per SQL text. */
    private readonly plan: (sql: string) => StatementPlan,
  ) {}

  of(sql: string): StatementPlan {
    let plan = this.#cache.get(sql);
    if (!plan) this.#cache.set(sql, (plan = this.plan(sql)));
    return plan;
  }

  forget(): void {
    this.#cache.clear();
    this.#statements.clear();
    this.#columns = undefined;
  }

  /**
   * The rows a statement planned as `reads` reads when bound to `params`: keys and filters with
   * their values, and the values it looks rows up by, read off the rows that supply them.
   */
  bind(reads: readonly PlannedRead[], params: readonly unknown[]): TableRead[] {
    return new Binding(this, params).reads(reads);
  }

  /** The same, for a statement that returns a page: `paged` narrows its reads once it ran. */
  binding(params: readonly unknown[]): StatementBinding {
    return new Binding(this, params);
  }

  /** livecmd's own statement (lookups, LIKE's mode), prepared once. */
  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.connection.prepare(sql)));
    return statement;
  }

  get imageColumns(): ImageColumns {
    return (this.#columns ??= imageColumnsOf(this.schema()));
  }
}

/**
 * The rows a statement returned: every one (`all`, run to its end or to its LIMIT), or the first
 * alone (`get`, which steps it no further).
 */
export interface ReturnedRows {
  readonly rows: readonly unknown[];
  readonly firstOnly: boolean;
}

/** One statement's reads bound to its values, before it runs and, for a page, after. */
export interface StatementBinding {
  reads(reads: readonly PlannedRead[]): TableRead[];
  paged(
    planned: readonly PlannedRead[],
    bound: readonly TableRead[],
    returned: ReturnedRows,
  ): TableRead[];
}

/** One statement's values: its parameters, and the values it looks up (each looked up once). */
class Binding implements FilterBinding, StatementBinding {
  // Made on the first lookup: most statements look nothing up, and this runs for each of them.
  #lookups: Map<string, unknown[] | undefined> | undefined;
  /** Why a lookup's values could not be told, by lookup. */
  #beyond: Map<string, string> | undefined;
  #like: "sensitive" | "insensitive" | undefined | null = null;

  /** The parameters, and after them the last keys of pages (bound as parameters are, copied before the first). */
  #params: readonly unknown[];

  constructor(
    private readonly plans: StatementPlans,
    params: readonly unknown[],
  ) {
    this.#params = params;
  }

  reads(reads: readonly PlannedRead[]): TableRead[] {
    return reads.map((read): TableRead => {
      if (read.page?.whole) return { table: read.table, reason: read.page.whole };
      if (read.filter !== undefined)
        return { table: read.table, filter: this.#filter(read.filter) };
      if (read.column === undefined) return read;
      const values = this.#keys(read.column, read.sources);
      if (values === undefined)
        return { table: read.table, reason: this.#whyNotKeyed(read.sources) };
      const lookedUp = lookupsText(read.sources);
      return {
        table: read.table,
        column: read.column.key,
        values,
        ...(lookedUp !== undefined && { lookedUp }),
      };
    });
  }

  /** The keys of `sources` in `column`; undefined when one cannot be told (NULL, a real SQLite prints otherwise, too many looked up). */
  #keys(column: KeyColumn, sources: readonly KeySource[]): KeyValue[] | undefined {
    // One value, as a read by one key has: the Set below costs more than the rest of this.
    if (sources.length === 1) {
      const [source] = sources as [KeySource];
      const values = this.#raw(source);
      const key = values?.length === 1 ? boundKey(values[0], source.via, column) : null;
      if (key !== null) return key === undefined ? undefined : [key];
    }
    const keys = new Set<KeyValue>();
    for (const source of sources) {
      const values = this.#raw(source);
      if (values === undefined) return undefined;
      for (const value of values) {
        const key = boundKey(value, source.via, column);
        if (key === undefined) return undefined;
        keys.add(key);
      }
    }
    return [...keys];
  }

  #whyNotKeyed(sources: readonly KeySource[]): WholeReason {
    for (const source of sources) {
      if (!("lookup" in source)) continue;
      const beyond = this.#beyond?.get(source.lookup.id);
      if (beyond !== undefined) return { kind: "lookup", from: lookupText(source.lookup), beyond };
    }
    return UNCOMPARABLE;
  }

  /**
   * A page's read narrowed by the rows the statement returned: when the page is full (its LIMIT
   * reached, or its first row returned by `get`), to the rows whose key is at most (descending:
   * at least) the last returned row's, those the loop visited; else as bound before it ran.
   */
  paged(
    planned: readonly PlannedRead[],
    bound: readonly TableRead[],
    returned: ReturnedRows,
  ): TableRead[] {
    return planned.map((read, i) => {
      const page = read.page;
      const last = page && lastKey(page, returned, () => page.limit && this.#raw(page.limit)?.[0]);
      if (!read.page || last === undefined) return bound[i]!;
      const { key, collation, descending } = read.page;
      this.#params = [...this.#params, last];
      const edge = { sources: [{ param: this.#params.length, via: [] }], inclusive: true };
      const atom: PlannedAtom = {
        kind: "range",
        field: key,
        collation,
        ...(descending ? { lower: edge } : { upper: edge }),
      };
      return {
        table: read.table,
        filter: this.#filter({ atom, ifTrue: read.filter, ifFalse: false }),
      };
    });
  }

  /** A source's values as JavaScript holds them before conversion: a parameter, a constant, or the values looked up. */
  #raw(source: KeySource): readonly unknown[] | undefined {
    if ("param" in source) return [this.#params[source.param - 1]];
    if ("constant" in source) return [source.constant];
    const { id } = source.lookup;
    const lookups = (this.#lookups ??= new Map());
    if (!lookups.has(id)) lookups.set(id, this.#lookUp(source.lookup));
    return lookups.get(id);
  }

  #lookUp(lookup: Lookup): unknown[] | undefined {
    const rows = this.#rows(lookup.rows);
    const columns = this.plans.imageColumns.get(lookup.table);
    let found: unknown[] | string = "values livecmd cannot tell";
    try {
      if (columns) found = lookedUpValues((sql) => this.plans.prepare(sql), lookup, rows, columns);
    } catch {
      // A lookup that fails leaves its reads whole; the app's statement runs and fails on its own.
      found = "the lookup of its values failed";
    }
    if (typeof found !== "string") return found;
    (this.#beyond ??= new Map()).set(lookup.id, found);
    return undefined;
  }

  /** The rows a supplier reads, bound: a key it cannot bind makes it whole (every value it holds). */
  #rows(rows: PlannedRows): BoundRows {
    if ("whole" in rows) return { whole: true };
    const keys: { column: KeyColumn; values: KeyValue[] }[] = [];
    for (const { column, sources } of rows.keys) {
      const values = this.#keys(column, sources);
      if (values === undefined) return { whole: true };
      keys.push({ column, values });
    }
    return { keys, filters: rows.filters.map((decision) => this.#supplier(decision)) };
  }

  /**
   * A supplier's filter, with the range its index loop reads as SQL when it has one: the rows a
   * lookup tests are then those the app's statement reads too.
   */
  #supplier(decision: PlannedDecision): BoundFilter {
    const filter = this.#filter(decision);
    const range = typeof decision === "boolean" ? undefined : decision.atom;
    // Without a lower end the range holds NULLs too, which SQL's comparisons leave out.
    if (range?.kind !== "range" || !range.lower) return { filter };
    const column = range.field.field === "rowid" ? undefined : range.field.field.sql;
    const sql: string[] = [];
    const params: unknown[] = [];
    for (const [edge, inclusive, operator] of [
      [range.lower, range.lower?.inclusive, ">"],
      [range.upper, range.upper?.inclusive, "<"],
    ] as const) {
      if (!edge) continue;
      const [operand] = this.operands(edge.sources) ?? [];
      if (!operand?.value || edge.sources.length !== 1) return { filter };
      sql.push(`t.${column} COLLATE ${range.collation} ${operator}${inclusive ? "=" : ""} ?`);
      params.push(jsValue(operand.value));
    }
    return column && sql.length > 0
      ? { filter, within: { sql: sql.join(" AND "), params } }
      : { filter };
  }

  #filter(decision: PlannedDecision): RowFilter {
    return boundFilter(decision, this);
  }

  operands(sources: readonly KeySource[]): readonly Operand[] | undefined {
    const operands: Operand[] = [];
    for (const source of sources) {
      const values = this.#raw(source);
      if (values === undefined) return undefined;
      for (const raw of values) {
        const value = raw === null ? null : boundValue(raw);
        let operand: Operand | undefined = value === undefined ? undefined : { value, exact: true };
        for (const affinity of source.via) operand = operand && converted(operand, affinity);
        if (!operand) return undefined;
        operands.push(operand);
      }
    }
    return operands;
  }

  like(): "sensitive" | "insensitive" | undefined {
    if (this.#like !== null) return this.#like;
    try {
      const { folds, own } = this.plans
        .prepare(
          "SELECT 'a' LIKE 'A' AS folds, (SELECT count(*) FROM pragma_function_list WHERE name = 'like' AND builtin = 0) AS own",
        )
        .get() as { folds: number; own: number };
      this.#like = own > 0 ? undefined : folds ? "insensitive" : "sensitive";
    } catch {
      this.#like = undefined;
    }
    return this.#like;
  }
}

/** A value as JavaScript binds it to the same storage class. */
function jsValue(value: Typed): unknown {
  if (value.kind === "blob") return Buffer.from(value.value, "hex");
  return value.value;
}

/** Where a read's looked-up values came from (`appointments.patient_id`), when they did. */
function lookupsText(sources: readonly KeySource[]): string | undefined {
  const names = sources.flatMap((source) =>
    "lookup" in source ? [lookupText(source.lookup)] : [],
  );
  return names.length > 0 ? [...new Set(names)].join(", ") : undefined;
}

function lookupText({ table, field }: Lookup): string {
  return `${table}.${field === "rowid" ? "rowid" : field.name}`;
}

/**
 * The key of the last returned row, when the page is full (its `limit`, read only when needed,
 * reached) and the row tells it exactly: its columns are the program's, by name (none a number,
 * which objects put first), and the key is not NULL (nothing narrower) nor an integer past what
 * a double holds exactly.
 */
function lastKey(
  page: PagedRead,
  { rows, firstOnly }: ReturnedRows,
  limit: () => unknown,
): unknown {
  const last = rows.at(-1);
  if (typeof last !== "object" || last === null) return undefined;
  if (!firstOnly) {
    const value = limit();
    const count =
      typeof value === "bigint" || Number.isSafeInteger(value) ? BigInt(value as number) : -1n;
    if (BigInt(rows.length) !== count) return undefined;
  }
  const names = Object.keys(last);
  if (names.length !== page.columns || names.some((name) => /^\d+$/.test(name))) return undefined;
  const key = (last as Record<string, unknown>)[names[page.column]!];
  if (key === null || key === undefined) return undefined;
  if (typeof key === "number" && Number.isInteger(key) && !Number.isSafeInteger(key))
    return undefined;
  return key;
}
