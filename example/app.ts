import { defineApp, type App } from "livecmd";
import * as customers from "./commands/customers.ts";
import * as orders from "./commands/orders.ts";
import { exampleDatabasePath, openExampleDatabase } from "./db.ts";
import catalog from "../generated/catalog.json" with { type: "json" };
import { templates } from "../generated/templates.ts";

/**
 * The example app on the SQLite database at `databasePath` (`":memory:"` for a fresh one), or
 * at `exampleDatabasePath()` when absent. The database is opened, and seeded if new, on first use.
 */
export function createExampleApp(databasePath?: string): App {
  return defineApp({
    name: "app",
    commands: { ...customers, ...orders },
    agent: {
      // Everything but customers_export: a bulk dump of every customer is not an agent's business.
      grant: [
        customers.customers_index,
        customers.customers_show,
        customers.customers_tagged,
        customers.customers_report,
        customers.customers_by_attributes,
        customers.customers_search,
        customers.customers_create,
        customers.customers_rename,
        customers.customers_delete,
        orders.orders_between,
        orders.orders_over,
        orders.orders_flagged,
        orders.orders_create,
      ],
      // Over authenticated HTTP, writes need a scope; reads need none. Unauthenticated
      // transports (stdio, loopback HTTP without auth) have no principal and are not asked.
      scopes: {
        customers_create: ["customers:write"],
        customers_rename: ["customers:write"],
        customers_delete: ["customers:write"],
        orders_create: ["orders:write"],
      },
    },
    database: () => openExampleDatabase(databasePath ?? exampleDatabasePath()),
    generated: { catalog, templates },
  }).complete(customers.customers_index, "search", (ctx, prefix) =>
    // Names that start with what the agent typed, the way a person would pick from a list.
    ctx.db
      .all<{ name: string }>(
        String.raw`SELECT DISTINCT name FROM customers WHERE name LIKE ? ESCAPE '\' ORDER BY name COLLATE NOCASE LIMIT 101`,
        `${prefix.replace(/[\\%_]/g, "\\$&")}%`,
      )
      .map(({ name }) => name),
  );
}

export default createExampleApp();
