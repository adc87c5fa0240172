import { defineApp, postgres, type App, type DatabaseSource } from "livecmd";
import * as customers from "./commands/customers.ts";
import * as orders from "./commands/orders.ts";
import { exampleDatabasePath, openExampleDatabase } from "./db.ts";
import { freshPostgresDatabase } from "./freshPostgresDatabase.ts";
import { setUpExampleSchema } from "./postgresDb.ts";
import catalog from "../generated/catalog.json" with { type: "json" };
import { templates } from "../generated/templates.ts";

/**
 * The example app on the SQLite database at `databasePath` (`":memory:"` for a fresh one), or
 * at `exampleDatabasePath()` when absent. With `DATABASE_URL` set, on PostgreSQL instead unless
 * the path (or `$LIVECMD_EXAMPLE_DB`) names a file: that database when there is no path, a fresh
 * seeded one next to it for `":memory:"`. The
 * database is opened, and seeded if new, on first use. `sqlite: true` keeps it on SQLite (tests
 * that look at the SQLite file itself).
 */
export function createExampleApp(databasePath?: string, options: { sqlite?: boolean } = {}): App {
  return defineApp({
    name: "app",
    description:
      "A small shop's customers (their tags and attributes) and their orders: find, read and watch customers and orders, create and rename customers, and place orders.",
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
    database: exampleDatabase(databasePath, options.sqlite === true),
    generated: { catalog, templates },
  }).complete(customers.customers_index, "search", async (ctx, prefix) => {
    // Names that start with what the agent typed, the way a person would pick from a list.
    const rows = await ctx.db.all<{ name: string }>(
      String.raw`SELECT name FROM customers WHERE LOWER(name) LIKE ? ESCAPE '\' GROUP BY name ORDER BY LOWER(name), name LIMIT 101`,
      `${prefix.replace(/[A-Z]/g, (letter) => letter.toLowerCase()).replace(/[\\%_]/g, "\\$&")}%`,
    );
    return rows.map(({ name }) => name);
  });
}

function exampleDatabase(databasePath: string | undefined, sqlite: boolean): DatabaseSource {
  const url = process.env.DATABASE_URL;
  const path = databasePath ?? process.env.LIVECMD_EXAMPLE_DB;
  if (url && !sqlite && (path === undefined || path === ":memory:")) {
    const target = path === undefined ? url : () => freshPostgresDatabase(url);
    return postgres(target, { setUp: setUpExampleSchema });
  }
  return () => openExampleDatabase(databasePath ?? exampleDatabasePath());
}

export default createExampleApp();
