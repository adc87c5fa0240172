import BetterSqlite3 from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { seedRows } from "./seed.ts";

/** Bumped when SCHEMA changes; a database at another version is reported, never migrated. */
const SCHEMA_VERSION = 1;

const SCHEMA = /* sql */ `
  CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    balance REAL NOT NULL,
    created_at TEXT NOT NULL -- ISO 8601, UTC
  );
  CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    total REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled')),
    placed_on TEXT NOT NULL, -- YYYY-MM-DD
    flagged INTEGER NOT NULL,
    archived INTEGER NOT NULL
  );
  CREATE TABLE customer_tags (
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    tag TEXT NOT NULL,
    PRIMARY KEY (customer_id, tag)
  ) WITHOUT ROWID;
  CREATE TABLE customer_attributes (
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (customer_id, key)
  ) WITHOUT ROWID;
`;

// Built after seeding, which is quicker than maintaining them row by row.
const INDEXES = /* sql */ `
  CREATE INDEX orders_by_customer ON orders (customer_id);
  CREATE INDEX orders_by_placed_on ON orders (placed_on);
  CREATE INDEX orders_by_total ON orders (total);
  CREATE INDEX customer_tags_by_tag ON customer_tags (tag, customer_id);
`;

/**
 * Where the example app keeps its data: `$LIVECMD_EXAMPLE_DB`, else `<repo>/.tmp/example.sqlite`
 * (the folder is created; `.tmp/` is git-ignored).
 */
export function exampleDatabasePath(): string {
  const configured = process.env.LIVECMD_EXAMPLE_DB;
  if (configured !== undefined) return configured;
  const path = fileURLToPath(new URL("../.tmp/example.sqlite", import.meta.url));
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

/**
 * Opens the example database, creating and seeding it on first use. The seed is deterministic:
 * every new database holds the same rows. `":memory:"` gives a fresh, seeded database.
 */
const BUSY_TIMEOUT_MS = 250;

export function openExampleDatabase(path: string): BetterSqlite3.Database {
  // better-sqlite3 is synchronous: a statement waiting on a lock blocks the whole event loop, so
  // wait briefly and fail with "database is locked" rather than stall every client for 5 s.
  const db = new BetterSqlite3(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    // A seeded database opens without taking the write lock; a new one is seeded under
    // IMMEDIATE, which takes it before reading the version again, so two processes opening a
    // new file cannot both seed it.
    if (db.pragma("user_version", { simple: true }) !== SCHEMA_VERSION) {
      db.transaction(() => createUnlessPresent(db, path)).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function createUnlessPresent(db: BetterSqlite3.Database, path: string): void {
  const version = db.pragma("user_version", { simple: true });
  if (version === SCHEMA_VERSION) return;
  if (version !== 0) {
    throw new Error(
      `${path} has schema version ${version}, expected ${SCHEMA_VERSION}; delete the file to recreate it`,
    );
  }
  db.exec(SCHEMA);
  insertSeed(db);
  db.exec(INDEXES);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

function insertSeed(db: BetterSqlite3.Database): void {
  const rows = seedRows();
  const insert = (sql: string, table: unknown[][]) => {
    const statement = db.prepare(sql);
    for (const row of table) statement.run(...row);
  };
  insert(
    "INSERT INTO customers (id, name, email, balance, created_at) VALUES (?, ?, ?, ?, ?)",
    rows.customers,
  );
  insert("INSERT INTO customer_tags (customer_id, tag) VALUES (?, ?)", rows.customer_tags);
  insert(
    "INSERT INTO customer_attributes (customer_id, key, value) VALUES (?, ?, ?)",
    rows.customer_attributes,
  );
  insert(
    "INSERT INTO orders (customer_id, total, status, placed_on, flagged, archived) VALUES (?, ?, ?, ?, ?, ?)",
    rows.orders,
  );
}
