import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ProtocolError } from "@modelcontextprotocol/client";
import type { App, Invocation } from "../../../packages/livecmd/runtime/model/app.ts";
import { defineApp } from "../../../packages/livecmd/runtime/model/app.ts";
import type { Command } from "../../../packages/livecmd/runtime/model/command.ts";
import * as customers from "../../../example/commands/customers.ts";
import * as orders from "../../../example/commands/orders.ts";
import { openExampleDatabase } from "../../../example/db.ts";
import { createExampleApp } from "../../../example/app.ts";
import catalog from "../../../generated/catalog.json" with { type: "json" };
import { templates } from "../../../generated/templates.ts";
import { sqliteHandle } from "../../helpers/sqliteHandle.ts";
import { engineOf } from "../../../packages/livecmd/runtime/model/attachedEngine.ts";

export const PROTOCOLS = ["2026-07-28", "2025-11-25"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** What the handler of a command was run with, as middleware saw it (every run passes there). */
export interface Run {
  command: string;
  args: readonly unknown[];
}

export interface CountedApp {
  app: App;
  /** Every run of every command, in order: middleware sees each one before the handler. */
  runs: Run[];
}

/**
 * The example app on its own fresh SQLite database (`":memory:"` unless a path is given), with a
 * middleware recording every run. `overrides` replace commands by name (same catalog entry,
 * same generated parser) to add a rate limit, a fault or a delay.
 */
export function countedExampleApp(
  options: { path?: string; overrides?: Record<string, Command> } = {},
): CountedApp {
  const path = options.path ?? ":memory:";
  const app = options.overrides
    ? defineApp({
        name: "app",
        commands: { ...customers, ...orders, ...options.overrides },
        agent: { grant: exampleGrant(options.overrides) },
        database: () => openExampleDatabase(path),
        generated: { catalog, templates },
      })
    : createExampleApp(path, { sqlite: true });
  const runs: Run[] = [];
  app.use(async (invocation: Invocation, next) => {
    runs.push({ command: invocation.command, args: invocation.args });
    return next();
  });
  return { app, runs };
}

/** The example's grant, with overridden commands in place of the originals. */
function exampleGrant(overrides: Record<string, Command>): Command[] {
  const example = createExampleApp(":memory:"); // opens no database: that happens on first use
  const all: Record<string, Command> = { ...customers, ...orders };
  return [...example.commands.keys()]
    .filter((name) => engineOf(example).isGranted(name))
    .map((name) => overrides[name] ?? all[name]!);
}

/** Awaits a request that must fail with JSON-RPC error `code`; returns the error. */
export async function protocolError(
  request: Promise<unknown>,
  code: number,
): Promise<ProtocolError> {
  const error = await request.then(
    (result) =>
      assert.fail(`expected JSON-RPC error ${code}, got ${JSON.stringify(result).slice(0, 300)}`),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return error;
}

/** The text of a one-content read result. */
export function readText(result: { contents: unknown[] }): string {
  assert.equal(result.contents.length, 1);
  const [content] = result.contents as { text?: unknown }[];
  assert.equal(typeof content?.text, "string");
  return content!.text as string;
}

const TABLES = ["customers", "orders", "customer_tags", "customer_attributes"] as const;

/** Row counts and a hash of every row of every table: equal fingerprints, equal databases. */
export function fingerprint(app: App): Record<string, string> {
  const db = sqliteHandle(app);
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
    .all() as { name: string }[];
  const result: Record<string, string> = { tables: tables.map((t) => t.name).join(",") };
  for (const table of TABLES) {
    const rows = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).raw().all();
    result[table] =
      `${rows.length} rows, sha256 ${createHash("sha256").update(JSON.stringify(rows)).digest("hex")}`;
  }
  return result;
}

/**
 * How many customers the example's search finds for `search` if it is taken as plain text:
 * a case-insensitive (ASCII) substring of the name or email, computed without LIKE.
 */
export function plainTextMatches(app: App, search: string): number {
  const row = sqliteHandle(app)
    .prepare(
      "SELECT COUNT(*) AS n FROM customers WHERE instr(lower(name), lower(?)) > 0 OR instr(lower(email), lower(?)) > 0",
    )
    .get(search, search) as { n: number };
  return row.n;
}
