import { command, InvalidArguments, type Database, type Int, type SqlParam } from "livecmd";
import { noCustomer } from "./errors.ts";
import { uris } from "../../generated/uris.ts";

export type SortKey = "name" | "created_at" | "balance";

export interface CustomerQuery {
  /** Sort direction; `asc` when absent. */
  direction?: "asc" | "desc";
  /**
   * The page to return, from 1; 1 when absent.
   * @minimum 1
   * @default 1
   */
  page?: Int;
  /**
   * Customers per page, 1 to 100; 20 when absent.
   * @minimum 1
   * @maximum 100
   * @default 20
   */
  per_page?: Int;
  /** Text to find in the name or email, case-insensitive (`ada` finds "Ada Lovelace"). */
  search?: string;
  /** What to sort by; customers come in id order when absent. */
  sort?: SortKey;
}

export interface ReportFilter {
  /**
   * Only customers created on or after this date, `YYYY-MM-DD`.
   * @format date
   */
  since?: string;
  /** Only customers whose balance lies within these inclusive bounds. */
  balance: { min?: number; max?: number };
}

export interface NewCustomer {
  /**
   * Not blank; stored trimmed.
   * @pattern \S
   */
  name: string;
  /**
   * Unique among customers, ignoring case.
   * @format email
   */
  email: string;
  /** 0 when absent. */
  balance?: number;
}

export interface Customer {
  id: Int;
  name: string;
  email: string;
  balance: number;
  /** ISO 8601, UTC. */
  created_at: string;
}

export interface CustomerDetail extends Customer {
  /** Orders of every status, cancelled ones included. */
  order_count: Int;
  /** The sum of those orders' totals. */
  order_total: number;
  /** Sorted. */
  tags: string[];
  attributes: Record<string, string>;
}

export interface CustomerPage {
  page: Int;
  per_page: Int;
  /** How many customers match, on every page. */
  total: Int;
  customers: Customer[];
}

export interface CustomerReport {
  /** How many customers match the filter. */
  count: Int;
  /** Their balances: the sum, and the average (null when no customer matches). */
  balance: { total: number; average: number | null };
  /** Their orders, of every status. */
  orders: { count: Int; total: number };
}

export interface DeletedCustomer {
  id: Int;
  name: string;
  orders_deleted: Int;
}

const COLUMNS = "id, name, email, balance, created_at";

/** Sort keys map to SQL here, so no argument is ever spliced into a statement. */
const SORT_COLUMNS: Record<SortKey, string> = {
  name: "LOWER(name)",
  created_at: "created_at",
  balance: "balance",
};
const DIRECTIONS = { asc: "ASC", desc: "DESC" } as const;

/**
 * Takes the LIKE pattern (lower case) three times; a null pattern matches every customer. The SQL
 * here is what SQLite and PostgreSQL both run: LOWER() for case, CAST for a parameter's type.
 */
const SEARCH = String.raw`(CAST(? AS TEXT) IS NULL OR LOWER(name) LIKE ? ESCAPE '\' OR LOWER(email) LIKE ? ESCAPE '\')`;

/** Takes since, balance min and max; a null bound does not restrict. */
const REPORT_FILTER =
  "c.created_at >= COALESCE(?, c.created_at) AND c.balance >= COALESCE(?, c.balance) AND c.balance <= COALESCE(?, c.balance)";

/**
 * A page of customers as `{ page, per_page, total, customers }`: `search` matches name or email,
 * case-insensitive, and `sort` orders by name, created_at or balance (id order when absent).
 */
export const customers_index = command(
  { live: true, title: "Customers" },
  async (ctx, query: CustomerQuery): Promise<CustomerPage> => pageOfCustomers(ctx.db, query),
);

/**
 * One customer by id (e.g. 1), with their order count, order total, tags and attributes.
 * @param id The customer's id, e.g. 1 for Ada Lovelace.
 * @minimum 1
 */
export const customers_show = command(
  { live: true, view: true, title: "Customer" },
  async (ctx, id: Int): Promise<CustomerDetail> => {
    const customer = await ctx.db.get<Omit<CustomerDetail, "tags" | "attributes">>(
      `SELECT c.id, c.name, c.email, c.balance, c.created_at,
            COUNT(o.id) AS order_count, ${cents("COALESCE(SUM(o.total), 0)")} AS order_total
       FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
      WHERE c.id = ? GROUP BY c.id`,
      id,
    );
    if (!customer) throw noCustomer(id);
    return {
      ...customer,
      tags: await tagsOf(ctx.db, id),
      attributes: await attributesOf(ctx.db, id),
    };
  },
);

/**
 * The customers that carry every one of `tags`, in id order.
 * @param tags Tags to require, e.g. ["vip", "beta"]; the example data uses beta, churn-risk, newsletter, vip and wholesale.
 */
export const customers_tagged = command(
  { live: true },
  async (ctx, tags: string[]): Promise<Customer[]> => {
    if (tags.length === 0)
      throw new InvalidArguments([{ field: "tags", message: "must hold at least one tag" }]);
    const wanted = [...new Set(tags)];
    return ctx.db.all<Customer>(
      `SELECT ${COLUMNS} FROM customers WHERE id IN (
       SELECT customer_id FROM customer_tags WHERE tag IN (${wanted.map(() => "?").join(", ")})
        GROUP BY customer_id HAVING COUNT(*) = ?)
     ORDER BY id`,
      ...wanted,
      wanted.length,
    );
  },
);

/**
 * Totals for the customers created since `since` whose balance is within `balance.min`..`balance.max`:
 * their count, balance sum and average, and their orders' count and sum.
 */
export const customers_report = command(
  { live: true },
  async (ctx, filter: ReportFilter): Promise<CustomerReport> => {
    const bounds = reportBounds(filter);
    const customers = (await ctx.db.get<{ count: Int; total: number; average: number | null }>(
      `SELECT COUNT(*) AS count, ${cents("COALESCE(SUM(c.balance), 0)")} AS total, ${cents("AVG(c.balance)")} AS average
       FROM customers c WHERE ${REPORT_FILTER}`,
      ...bounds,
    ))!;
    const orders = (await ctx.db.get<{ count: Int; total: number }>(
      `SELECT COUNT(*) AS count, ${cents("COALESCE(SUM(o.total), 0)")} AS total
       FROM orders o JOIN customers c ON c.id = o.customer_id WHERE ${REPORT_FILTER}`,
      ...bounds,
    ))!;
    return {
      count: customers.count,
      balance: { total: customers.total, average: customers.average },
      orders,
    };
  },
);

/**
 * The customers whose attributes include every key and value of `attrs`, in id order.
 * @param attrs Attributes to match exactly, e.g. {"plan": "pro", "region": "eu"}; the example data has plan (free, pro, enterprise), region (apac, eu, latam, na) and industry (education, finance, health, retail, software).
 */
export const customers_by_attributes = command(
  { live: true },
  async (ctx, attrs: Record<string, string>): Promise<Customer[]> => {
    const wanted = Object.entries(attrs);
    if (wanted.length === 0) {
      throw new InvalidArguments([{ field: "attrs", message: "must hold at least one attribute" }]);
    }
    return ctx.db.all<Customer>(
      `SELECT ${COLUMNS} FROM customers WHERE id IN (
       SELECT customer_id FROM customer_attributes
        WHERE ${wanted.map(() => "(key = ? AND value = ?)").join(" OR ")}
        GROUP BY customer_id HAVING COUNT(*) = ?)
     ORDER BY id`,
      ...wanted.flat(),
      wanted.length,
    );
  },
);

/**
 * Like customers_index, a page of customers as `{ page, per_page, total, customers }`, but the
 * page is its own argument: `page` wins over `query.page`.
 */
export const customers_search = command(
  { live: true },
  async (ctx, query: CustomerQuery, page: Int): Promise<CustomerPage> =>
    pageOfCustomers(ctx.db, { ...query, page }),
);

/** Creates a customer and returns it; the email must not be in use yet. */
export const customers_create = command({}, async (ctx, input: NewCustomer): Promise<Customer> => {
  const name = input.name.trim();
  const { email, balance = 0 } = input;
  return ctx.db.transaction(async () => {
    const holder = await ctx.db.get<{ id: Int }>(
      "SELECT id FROM customers WHERE LOWER(email) = LOWER(?)",
      email,
    );
    if (holder) throw new Error(`email ${email} is already used by customer ${holder.id}`);
    const created = (await ctx.db.get<Customer>(
      `INSERT INTO customers (name, email, balance, created_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`,
      name,
      email,
      balance,
      new Date().toISOString(),
    ))!;
    // Where the agent can read and watch what it just made.
    ctx.link(uris.customers_show({ id: created.id }));
    return created;
  });
});

/**
 * Renames a customer and returns them.
 * @param id The customer's id.
 * @minimum 1
 * @param name The new name: not blank, stored trimmed.
 * @pattern \S
 */
export const customers_rename = command(
  { annotations: { idempotentHint: true } },
  async (ctx, id: Int, name: string): Promise<Customer> => {
    const { changes } = await ctx.db.run(
      "UPDATE customers SET name = ? WHERE id = ?",
      name.trim(),
      id,
    );
    if (changes === 0) throw noCustomer(id);
    ctx.link(uris.customers_show({ id }));
    return customerById(ctx.db, id);
  },
);

/**
 * Deletes a customer with their orders, tags and attributes, returning `{ id, name, orders_deleted }`.
 * @param id The customer's id.
 * @minimum 1
 */
export const customers_delete = command(
  { confirm: { message: "Delete this customer, with every order, tag and attribute of theirs?" } },
  async (ctx, id: Int): Promise<DeletedCustomer> => {
    return ctx.db.transaction(async () => {
      const { name } = await customerById(ctx.db, id);
      // Each table is deleted from by name, not by cascade, so that every change is a statement
      // SQLite's live tracking sees (PostgreSQL's change feed would see a cascade too).
      await ctx.db.run("DELETE FROM customer_tags WHERE customer_id = ?", id);
      await ctx.db.run("DELETE FROM customer_attributes WHERE customer_id = ?", id);
      const orders = await ctx.db.run("DELETE FROM orders WHERE customer_id = ?", id);
      await ctx.db.run("DELETE FROM customers WHERE id = ?", id);
      return { id, name, orders_deleted: orders.changes as Int };
    });
  },
);

/** Every customer, in id order. */
export const customers_export = command({ live: true }, async (ctx): Promise<Customer[]> =>
  ctx.db.all<Customer>(`SELECT ${COLUMNS} FROM customers ORDER BY id`),
);

async function pageOfCustomers(db: Database, query: CustomerQuery = {}): Promise<CustomerPage> {
  const page = query.page ?? (1 as Int);
  const perPage = query.per_page ?? (20 as Int);
  const pattern = query.search === undefined ? null : likePattern(query.search);
  const { total } = (await db.get<{ total: Int }>(
    `SELECT COUNT(*) AS total FROM customers WHERE ${SEARCH}`,
    pattern,
    pattern,
    pattern,
  ))!;
  const customers = await db.all<Customer>(
    `SELECT ${COLUMNS} FROM customers WHERE ${SEARCH} ORDER BY ${orderBy(query)} LIMIT ? OFFSET ?`,
    pattern,
    pattern,
    pattern,
    perPage,
    (page - 1) * perPage,
  );
  return { page, per_page: perPage, total, customers };
}

/** The ORDER BY clause, from whitelisted SQL only; ties go by id so that pages never overlap. */
function orderBy({ sort, direction = "asc" }: CustomerQuery): string {
  const order = DIRECTIONS[direction];
  if (sort === undefined) return `id ${order}`;
  return `${SORT_COLUMNS[sort]} ${order}, id`;
}

/** ASCII letters in lower case, as LOWER() leaves the columns (SQLite's LIKE folded ASCII only). */
function likePattern(search: string): string {
  const lower = search.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  return `%${lower.replace(/[\\%_]/g, "\\$&")}%`;
}

/** `expression` rounded to cents, written the same for SQLite and PostgreSQL (a float, not numeric). */
function cents(expression: string): string {
  return `ROUND((${expression}) * 100) / 100.0`;
}

function reportBounds(filter: ReportFilter): SqlParam[] {
  const { min = null, max = null } = filter.balance;
  if (min !== null && max !== null && min > max) {
    throw new InvalidArguments([
      { field: "balance.max", message: `is below balance.min (${min})` },
    ]);
  }
  return [filter.since ?? null, min, max];
}

async function customerById(db: Database, id: number): Promise<Customer> {
  const customer = await db.get<Customer>(`SELECT ${COLUMNS} FROM customers WHERE id = ?`, id);
  if (!customer) throw noCustomer(id);
  return customer;
}

async function tagsOf(db: Database, id: number): Promise<string[]> {
  const rows = await db.all<{ tag: string }>(
    "SELECT tag FROM customer_tags WHERE customer_id = ? ORDER BY tag",
    id,
  );
  return rows.map(({ tag }) => tag);
}

async function attributesOf(db: Database, id: number): Promise<Record<string, string>> {
  const rows = await db.all<{ key: string; value: string }>(
    "SELECT key, value FROM customer_attributes WHERE customer_id = ? ORDER BY key",
    id,
  );
  return Object.fromEntries(rows.map(({ key, value }) => [key, value]));
}
