import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type BetterSqlite3 from "better-sqlite3";
import exampleApp, { createExampleApp } from "../../example/app.ts";
import type {
  Customer,
  CustomerDetail,
  CustomerPage,
  CustomerReport,
  DeletedCustomer,
} from "../../example/commands/customers.ts";
import type { Order } from "../../example/commands/orders.ts";
import { exampleDatabasePath, openExampleDatabase } from "../../example/db.ts";
import { sqliteHandle } from "../helpers/sqliteHandle.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";

// A change to the seed changes this on purpose; update it only when the data is meant to change.
const SEED_CHECKSUM = "56c322147025a8ea8628c7c14fa8affe060d6bbb1297a41f02ff10cf844e7405";
const TABLES = ["customers", "orders", "customer_tags", "customer_attributes"];

function freshApp() {
  const app = createExampleApp(":memory:", { sqlite: true });
  const run = <T>(name: string, ...args: unknown[]) =>
    app.run(name, args, { origin: "app" }) as Promise<T>;
  return { app, run, sql: sqliteHandle(app) };
}

function scalar(sql: BetterSqlite3.Database, query: string, ...params: unknown[]): number {
  return sql
    .prepare(query)
    .pluck()
    .get(...params) as number;
}

function checksum(sql: BetterSqlite3.Database): string {
  const hash = createHash("sha256");
  for (const table of TABLES)
    hash.update(JSON.stringify(sql.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).raw().all()));
  return hash.digest("hex");
}

// Reads never change the data, so they share one database.
const shared = freshApp();
const { run, sql } = shared;

describe("example database", () => {
  it("seeds the same rows every time", () => {
    const other = openExampleDatabase(":memory:");
    assert.equal(checksum(other), checksum(sql));
    assert.equal(checksum(sql), SEED_CHECKSUM);
    other.close();
  });

  it("holds 2,000 customers, 6,000 orders across 2024 and 2025, tags and attributes", () => {
    assert.deepEqual(
      TABLES.map((table) => scalar(sql, `SELECT COUNT(*) FROM ${table}`)),
      [2000, 6000, 1369, 5013],
    );
    assert.deepEqual(sql.prepare("SELECT MIN(placed_on), MAX(placed_on) FROM orders").raw().get(), [
      "2024-01-01",
      "2025-12-31",
    ]);
  });

  it("creates a file once, in WAL mode with foreign keys on, and keeps writes across reopening", () => {
    const folder = mkdtempSync(join(tmpdir(), "livecmd-example-"));
    try {
      const path = join(folder, "example.sqlite");
      const first = openExampleDatabase(path);
      assert.equal(first.pragma("journal_mode", { simple: true }), "wal");
      assert.equal(first.pragma("foreign_keys", { simple: true }), 1);
      first.prepare("UPDATE customers SET name = 'Countess of Lovelace' WHERE id = 1").run();
      first.close();
      const second = openExampleDatabase(path);
      assert.equal(scalar(second, "SELECT COUNT(*) FROM customers"), 2000);
      assert.equal(
        second.prepare("SELECT name FROM customers WHERE id = 1").pluck().get(),
        "Countess of Lovelace",
      );
      second.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("finds its file through LIVECMD_EXAMPLE_DB", () => {
    const before = process.env.LIVECMD_EXAMPLE_DB;
    process.env.LIVECMD_EXAMPLE_DB = "/somewhere/else.sqlite";
    try {
      assert.equal(exampleDatabasePath(), "/somewhere/else.sqlite");
    } finally {
      if (before === undefined) delete process.env.LIVECMD_EXAMPLE_DB;
      else process.env.LIVECMD_EXAMPLE_DB = before;
    }
  });
});

describe("example app", () => {
  it("grants every command but customers_export", () => {
    assert.deepEqual(
      [...exampleApp.commands.keys()].filter((name) => !engineOf(exampleApp).isGranted(name)),
      ["customers_export"],
    );
    assert.equal(exampleApp.commands.size, 14);
  });

  it("returns plain JSON", async () => {
    for (const result of [await run("customers_show", 1), await run("orders_flagged", true)]) {
      assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
    }
  });
});

describe("customers_show", () => {
  it("shows Ada Lovelace as customer 1, with her orders, tags and attributes", async () => {
    const ada = await run<CustomerDetail>("customers_show", 1);
    assert.equal(ada.name, "Ada Lovelace");
    assert.equal(ada.email, "ada.lovelace@example.com");
    assert.equal(ada.order_count, scalar(sql, "SELECT COUNT(*) FROM orders WHERE customer_id = 1"));
    assert.equal(
      ada.order_total,
      scalar(sql, "SELECT ROUND(SUM(total), 2) FROM orders WHERE customer_id = 1"),
    );
    assert.deepEqual(
      ada.tags,
      sql.prepare("SELECT tag FROM customer_tags WHERE customer_id = 1 ORDER BY tag").pluck().all(),
    );
    assert.equal(
      Object.keys(ada.attributes).length,
      scalar(sql, "SELECT COUNT(*) FROM customer_attributes WHERE customer_id = 1"),
    );
  });

  it("shows a customer without orders with zero counts", async () => {
    const id = scalar(
      sql,
      "SELECT MIN(id) FROM customers WHERE id NOT IN (SELECT customer_id FROM orders)",
    );
    const customer = await run<CustomerDetail>("customers_show", id);
    assert.deepEqual([customer.order_count, customer.order_total], [0, 0]);
  });

  it("says which id it could not find", async () => {
    await assert.rejects(run("customers_show", 99999), { message: "no customer with id 99999" });
    await assert.rejects(run("customers_show", 1.5), {
      name: "InvalidArguments",
      message: "id: must be an integer",
    });
  });
});

describe("customers_index", () => {
  it("defaults to the first 20 customers in id order", async () => {
    const page = await run<CustomerPage>("customers_index", {});
    assert.deepEqual([page.page, page.per_page, page.total], [1, 20, 2000]);
    assert.deepEqual(
      page.customers.map((c) => c.id),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it("searches name and email, case-insensitive", async () => {
    const page = await run<CustomerPage>("customers_index", { search: "ADA" });
    assert.deepEqual(
      page.customers.map((c) => c.name),
      ["Ada Lovelace", "Adam Osborne", "Ada Yonath"],
    );
    const byEmail = await run<CustomerPage>("customers_index", { search: "@Example.ORG" });
    assert.equal(
      byEmail.total,
      scalar(sql, "SELECT COUNT(*) FROM customers WHERE email LIKE '%@example.org'"),
    );
  });

  it("takes % and _ in a search literally", async () => {
    assert.equal((await run<CustomerPage>("customers_index", { search: "%" })).total, 0);
    assert.equal((await run<CustomerPage>("customers_index", { search: "a_a" })).total, 0);
  });

  it("sorts by balance, descending, with ties by id", async () => {
    const page = await run<CustomerPage>("customers_index", {
      sort: "balance",
      direction: "desc",
      per_page: 100,
    });
    assert.deepEqual(
      page.customers.map((c) => c.id),
      sql.prepare("SELECT id FROM customers ORDER BY balance DESC, id LIMIT 100").pluck().all(),
    );
  });

  it("pages through every customer exactly once", async () => {
    const ids: number[] = [];
    for (let page = 1; page <= 20; page++) {
      const result = await run<CustomerPage>("customers_index", {
        sort: "name",
        page,
        per_page: 100,
      });
      ids.push(...result.customers.map((c) => c.id));
    }
    assert.equal(new Set(ids).size, 2000);
    assert.deepEqual(
      ids,
      sql.prepare("SELECT id FROM customers ORDER BY name COLLATE NOCASE, id").pluck().all(),
    );
    assert.deepEqual(
      (await run<CustomerPage>("customers_index", { page: 21, per_page: 100 })).customers,
      [],
    );
  });

  it("rejects pages and page sizes out of range", async () => {
    await assert.rejects(run("customers_index", { per_page: 0 }), {
      message: "per_page: must be at least 1",
    });
    await assert.rejects(run("customers_index", { per_page: 101 }), {
      message: "per_page: must be at most 100",
    });
    await assert.rejects(run("customers_index", { page: 0 }), {
      message: "page: must be at least 1",
    });
    await assert.rejects(run("customers_index", { sort: "email" }), {
      message: 'sort: must be one of "name", "created_at", "balance"',
    });
  });
});

describe("customers_search", () => {
  it("takes the page from its own argument", async () => {
    const page = await run<CustomerPage>(
      "customers_search",
      { search: "a", per_page: 5, page: 9 },
      2,
    );
    const expected = await run<CustomerPage>("customers_index", {
      search: "a",
      per_page: 5,
      page: 2,
    });
    assert.deepEqual(page, expected);
  });
});

describe("customers_tagged, customers_by_attributes, customers_report", () => {
  it("lists the customers carrying every tag", async () => {
    const customers = await run<Customer[]>("customers_tagged", ["vip", "beta", "vip"]);
    assert.ok(customers.length > 0);
    assert.deepEqual(
      customers.map((c) => c.id),
      sql
        .prepare(
          "SELECT customer_id FROM customer_tags WHERE tag = 'vip' INTERSECT SELECT customer_id FROM customer_tags WHERE tag = 'beta'",
        )
        .pluck()
        .all(),
    );
    await assert.rejects(run("customers_tagged", []), {
      message: "tags: must hold at least one tag",
    });
  });

  it("lists the customers matching every attribute", async () => {
    const customers = await run<Customer[]>("customers_by_attributes", {
      plan: "enterprise",
      region: "eu",
    });
    assert.ok(customers.length > 0);
    assert.equal(
      customers.length,
      scalar(
        sql,
        `SELECT COUNT(*) FROM customer_attributes p JOIN customer_attributes r USING (customer_id)
          WHERE p.key = 'plan' AND p.value = 'enterprise' AND r.key = 'region' AND r.value = 'eu'`,
      ),
    );
    await assert.rejects(run("customers_by_attributes", {}), {
      name: "InvalidArguments",
      message: "attrs: must hold at least one attribute",
    });
  });

  it("reports on customers by creation date and balance", async () => {
    const report = await run<CustomerReport>("customers_report", {
      since: "2024-01-01",
      balance: { min: 1000, max: 2000 },
    });
    const where = "created_at >= '2024-01-01' AND balance BETWEEN 1000 AND 2000";
    assert.equal(report.count, scalar(sql, `SELECT COUNT(*) FROM customers WHERE ${where}`));
    assert.equal(
      report.balance.total,
      scalar(sql, `SELECT ROUND(SUM(balance), 2) FROM customers WHERE ${where}`),
    );
    assert.equal(
      report.orders.count,
      scalar(
        sql,
        `SELECT COUNT(*) FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE ${where})`,
      ),
    );
    const everyone = await run<CustomerReport>("customers_report", { balance: {} });
    assert.deepEqual([everyone.count, everyone.orders.count], [2000, 6000]);
    const nobody = await run<CustomerReport>("customers_report", { balance: { min: 1e9 } });
    assert.deepEqual(nobody, {
      count: 0,
      balance: { total: 0, average: null },
      orders: { count: 0, total: 0 },
    });
    await assert.rejects(run("customers_report", { balance: { min: 5, max: 1 } }), {
      message: "balance.max: is below balance.min (5)",
    });
  });
});

describe("orders", () => {
  it("lists the orders between two dates, inclusive", async () => {
    const orders = await run<Order[]>("orders_between", "2025-01-01", "2025-01-31");
    assert.equal(
      orders.length,
      scalar(
        sql,
        "SELECT COUNT(*) FROM orders WHERE placed_on >= '2025-01-01' AND placed_on <= '2025-01-31'",
      ),
    );
    assert.ok(orders.every((o) => o.placed_on >= "2025-01-01" && o.placed_on <= "2025-01-31"));
    assert.deepEqual(
      [orders[0]!.placed_on, orders.at(-1)!.placed_on],
      ["2025-01-01", "2025-01-31"],
    );
    const cancelled = await run<Order[]>("orders_between", "2025-01-01", "2025-12-31", "cancelled");
    assert.equal(
      cancelled.length,
      scalar(
        sql,
        "SELECT COUNT(*) FROM orders WHERE placed_on LIKE '2025-%' AND status = 'cancelled'",
      ),
    );
  });

  it("rejects dates that are not YYYY-MM-DD calendar dates, or in the wrong order", async () => {
    await assert.rejects(run("orders_between", "2025-1-5", "2025-02-01"), {
      message: "from: must be a date written YYYY-MM-DD",
    });
    await assert.rejects(run("orders_between", "2025-02-01", "2025-02-30"), {
      message: "to: is not a date in the calendar (February 2025 has 28 days)",
    });
    await assert.rejects(run("orders_between", "2025-02-01", "2025-01-01"), {
      message: "to: is before from (2025-02-01)",
    });
    await assert.rejects(
      run("orders_between", "2025-01-01", "2025-02-01", "lost"),
      /status: must be one of "pending", "paid", "shipped", "cancelled"/,
    );
  });

  it("lists the orders of at least a total", async () => {
    const orders = await run<Order[]>("orders_over", 10000);
    assert.equal(orders.length, scalar(sql, "SELECT COUNT(*) FROM orders WHERE total >= 10000"));
    assert.ok(orders.length > 0 && orders.every((o) => o.total >= 10000));
    const shipped = await run<Order[]>("orders_over", 10000, "shipped");
    assert.equal(
      shipped.length,
      scalar(sql, "SELECT COUNT(*) FROM orders WHERE total >= 10000 AND status = 'shipped'"),
    );
  });

  it("lists flagged orders, archived ones only when asked", async () => {
    const current = await run<Order[]>("orders_flagged");
    assert.equal(
      current.length,
      scalar(sql, "SELECT COUNT(*) FROM orders WHERE flagged = 1 AND archived = 0"),
    );
    assert.ok(current.every((o) => o.flagged === true && o.archived === false));
    const all = await run<Order[]>("orders_flagged", true);
    assert.equal(all.length, scalar(sql, "SELECT COUNT(*) FROM orders WHERE flagged = 1"));
    assert.ok(all.length > current.length);
  });
});

describe("writes", () => {
  it("creates, renames and deletes a customer", async () => {
    const { run, sql } = freshApp();
    const created = await run<Customer>("customers_create", {
      name: " Grace Brewster ",
      email: "grace@navy.example",
    });
    assert.deepEqual([created.id, created.name, created.balance], [2001, "Grace Brewster", 0]);
    const renamed = await run<Customer>("customers_rename", created.id, "Grace Murray");
    assert.equal((await run<CustomerDetail>("customers_show", created.id)).name, renamed.name);
    const order = await run<Order>("orders_create", {
      customer_id: created.id,
      total: 12.5,
      placed_on: "2025-06-01",
    });
    assert.deepEqual(
      { ...order, id: 0 },
      {
        id: 0,
        customer_id: 2001,
        customer_name: "Grace Murray",
        total: 12.5,
        status: "pending",
        placed_on: "2025-06-01",
        flagged: false,
        archived: false,
      },
    );
    assert.ok(
      (await run<Order[]>("orders_between", "2025-06-01", "2025-06-01")).some(
        (o) => o.id === order.id,
      ),
    );
    const deleted = await run<DeletedCustomer>("customers_delete", created.id);
    assert.deepEqual(deleted, { id: 2001, name: "Grace Murray", orders_deleted: 1 });
    await assert.rejects(run("customers_show", created.id), {
      message: "no customer with id 2001",
    });
    assert.equal(scalar(sql, "SELECT COUNT(*) FROM orders WHERE customer_id = 2001"), 0);
  });

  it("deletes a seeded customer with their orders, tags and attributes", async () => {
    const { run, sql } = freshApp();
    const orders = scalar(sql, "SELECT COUNT(*) FROM orders WHERE customer_id = 1");
    assert.equal((await run<DeletedCustomer>("customers_delete", 1)).orders_deleted, orders);
    for (const [table, column] of [
      ["customers", "id"],
      ["orders", "customer_id"],
      ["customer_tags", "customer_id"],
      ["customer_attributes", "customer_id"],
    ]) {
      assert.equal(scalar(sql, `SELECT COUNT(*) FROM ${table} WHERE ${column} = 1`), 0, table);
    }
    assert.equal(scalar(sql, "SELECT COUNT(*) FROM orders"), 6000 - orders);
  });

  it("rejects bad input with a clear message and writes nothing", async () => {
    const { run, sql } = freshApp();
    await assert.rejects(
      run("customers_create", { name: "Ada", email: "ADA.LOVELACE@example.com" }),
      {
        message: "email ADA.LOVELACE@example.com is already used by customer 1",
      },
    );
    await assert.rejects(run("customers_create", { name: "Ada", email: "ada" }), {
      message: "email: must be an email address",
    });
    await assert.rejects(run("customers_create", { name: "  ", email: "x@y.z" }), {
      message: "name: must match the pattern \\S",
    });
    await assert.rejects(run("customers_rename", 99999, "Nobody"), {
      message: "no customer with id 99999",
    });
    await assert.rejects(
      run("orders_create", { customer_id: 99999, total: 1, placed_on: "2025-01-01" }),
      {
        message: "no customer with id 99999",
      },
    );
    await assert.rejects(
      run("orders_create", { customer_id: 1, total: -1, placed_on: "2025-01-01" }),
      {
        message: "total: must be at least 0",
      },
    );
    await assert.rejects(run("customers_delete", 99999), { message: "no customer with id 99999" });
    assert.equal(checksum(sql), SEED_CHECKSUM);
  });
});

describe("customers_export", () => {
  it("returns every customer in id order", async () => {
    const customers = await run<Customer[]>("customers_export");
    assert.equal(customers.length, 2000);
    assert.deepEqual(customers[0], sql.prepare("SELECT * FROM customers WHERE id = 1").get());
  });
});
