import type pg from "pg";
import { postgres } from "livecmd";
import { setUpExampleSchema } from "./postgresDb.ts";

/** Seeded once per cluster; every fresh database is a copy of it. */
const TEMPLATE = "livecmd_example_template";
let made = 0;

/** A database name no other process or call of this one picks: `<prefix>_<pid>_<n>_<time>`. */
export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}_${process.pid}_${(made += 1)}_${Date.now().toString(36)}`;
}

/**
 * A new, seeded example database next to the one `url` names, and its URL: on PostgreSQL what
 * `":memory:"` is on SQLite, so that tests (in parallel processes) never share rows. Copying a
 * template is much quicker than seeding; the template is made once, under an advisory lock, by
 * whichever process asks first.
 */
export async function freshPostgresDatabase(url: string): Promise<string> {
  const name = uniqueDatabaseName("livecmd_example");
  // pg loads here, when the example runs on PostgreSQL: on SQLite it is never loaded.
  const { default: pgModule } = await import("pg");
  const admin = new pgModule.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock(hashtext('livecmd example template'))");
    const { rowCount } = await admin.query(
      "SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate",
      [TEMPLATE],
    );
    if (rowCount === 0) await makeTemplate(admin, url);
    // No session may be connected to a template while it is copied; the lock keeps ours out.
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE} STRATEGY FILE_COPY`);
  } finally {
    await admin.end();
  }
  return withDatabase(url, name);
}

async function makeTemplate(admin: pg.Client, url: string): Promise<void> {
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`); // a copy half-made by a killed run
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  // Set up as the app does (schema, seed, change feed), then closed: a template takes no sessions.
  const db = postgres(withDatabase(url, TEMPLATE), { setUp: setUpExampleSchema }).open(() => {});
  await db.get("SELECT 1");
  await db.close();
  await admin.query(`ALTER DATABASE ${TEMPLATE} IS_TEMPLATE true`);
}

/** `url` naming database `name` instead. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
