import { command, InvalidArguments, type Database, type Int, type SqlParam } from "livecmd";
import { noCustomer } from "./errors.ts";

export type OrderStatus = "pending" | "paid" | "shipped" | "cancelled";

export interface NewOrder {
  /** @minimum 1 */
  customer_id: Int;
  /** @minimum 0 */
  total: number;
  /**
   * `pending` when absent.
   * @default "pending"
   */
  status?: OrderStatus;
  /** @format date */
  placed_on: string;
}

export interface Order {
  id: Int;
  customer_id: Int;
  customer_name: string;
  total: number;
  status: OrderStatus;
  /** `YYYY-MM-DD`. */
  placed_on: string;
  /** Marked for review. */
  flagged: boolean;
  /** Settled long ago; orders_flagged leaves archived orders out unless asked. */
  archived: boolean;
}

const SELECT_ORDERS = `SELECT o.id, o.customer_id, c.name AS customer_name, o.total, o.status, o.placed_on, o.flagged, o.archived
  FROM orders o JOIN customers c ON c.id = o.customer_id`;

/**
 * The orders placed from `from` to `to`, both inclusive and written `YYYY-MM-DD`
 * (e.g. 2025-01-01 and 2025-01-31), optionally only those with `status`, oldest first.
 * @param from The first day, `YYYY-MM-DD`.
 * @format date
 * @param to The last day, `YYYY-MM-DD`, not before `from`.
 * @format date
 * @param status Only orders in this status; all statuses when absent.
 */
export const orders_between = command(
  { live: true, view: { html: "../views/ordersBetween.html" }, title: "Orders between two days" },
  async (ctx, from: string, to: string, status?: OrderStatus): Promise<Order[]> => {
    if (from > to)
      throw new InvalidArguments([{ field: "to", message: `is before from (${from})` }]);
    return selectOrders(
      ctx.db,
      "o.placed_on BETWEEN ? AND ? AND o.status = COALESCE(?, o.status)",
      from,
      to,
      status ?? null,
    );
  },
);

/**
 * The orders whose total is at least `min_total` (e.g. 10000), optionally only those with `status`, oldest first.
 * @param min_total The smallest total to include.
 * @param status Only orders in this status; all statuses when absent.
 */
export const orders_over = command(
  { live: true, title: "Orders over a total" },
  async (ctx, min_total: number, status?: OrderStatus): Promise<Order[]> =>
    selectOrders(
      ctx.db,
      "o.total >= ? AND o.status = COALESCE(?, o.status)",
      min_total,
      status ?? null,
    ),
);

/**
 * The orders flagged for review, oldest first; archived ones only when `include_archived` is true.
 * @param include_archived Also list archived orders; false when absent.
 */
export const orders_flagged = command(
  { live: true, title: "Flagged orders" },
  async (ctx, include_archived?: boolean): Promise<Order[]> => {
    return selectOrders(
      ctx.db,
      "o.flagged = 1 AND (o.archived = 0 OR ? = 1)",
      include_archived === true ? 1 : 0,
    );
  },
);

/** Places an order for an existing customer and returns it. */
export const orders_create = command({}, async (ctx, input: NewOrder): Promise<Order> => {
  const { customer_id: customerId, total, status = "pending", placed_on: placedOn } = input;
  return ctx.db.transaction(async () => {
    if (!(await ctx.db.get("SELECT 1 FROM customers WHERE id = ?", customerId)))
      throw noCustomer(customerId);
    const { id } = (await ctx.db.get<{ id: Int }>(
      "INSERT INTO orders (customer_id, total, status, placed_on, flagged, archived) VALUES (?, ?, ?, ?, 0, 0) RETURNING id",
      customerId,
      total,
      status,
      placedOn,
    ))!;
    return (await selectOrders(ctx.db, "o.id = ?", id))[0]!;
  });
});

interface OrderRow extends Omit<Order, "flagged" | "archived"> {
  flagged: number;
  archived: number;
}

async function selectOrders(db: Database, where: string, ...params: SqlParam[]): Promise<Order[]> {
  const rows = await db.all<OrderRow>(
    `${SELECT_ORDERS} WHERE ${where} ORDER BY o.placed_on, o.id`,
    ...params,
  );
  return rows.map(toOrder);
}

function toOrder(row: OrderRow): Order {
  return { ...row, flagged: row.flagged === 1, archived: row.archived === 1 };
}
