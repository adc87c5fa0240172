import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { uniqueDatabaseName, withDatabase } from "../../example/freshPostgresDatabase.ts";
import { root } from "./cli.ts";

const SCRIPT = path.join(root, "scripts/postgres-cluster.sh");
/** The script's exit code when the machine has no PostgreSQL binaries. */
const NO_BINARIES = 2;

export type PostgresServer = { url: string; skip?: undefined } | { url?: undefined; skip: string };

let server: PostgresServer | undefined;

/**
 * The PostgreSQL server this test process uses: `$DATABASE_URL`'s when set (CI starts one), else
 * a throwaway cluster of its own, started by the script CI uses and stopped when the process
 * exits. `skip` says why there is none: only a machine without PostgreSQL binaries has none.
 */
export function postgresServer(): PostgresServer {
  server ??= process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : ownCluster();
  return server;
}

/**
 * A throwaway cluster of this test process's own (`logical`: with `wal_level = logical`), for a
 * test that changes what the server does for every session; stopped when the process exits.
 */
export function ownCluster(kind?: "logical"): PostgresServer {
  const dir = mkdtempSync(path.join(tmpdir(), "livecmd-pg-"));
  const started = spawnSync("bash", [SCRIPT, "start", dir, ...(kind ? [kind] : [])], {
    encoding: "utf8",
  });
  if (started.status === NO_BINARIES) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `no PostgreSQL here: ${started.stderr.trim()}` };
  }
  if (started.status !== 0) throw new Error(`${SCRIPT} start failed: ${started.stderr}`);
  process.once("exit", () => {
    spawnSync("bash", [SCRIPT, "stop", dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: started.stdout.trim() };
}

/** A new, empty database on `url`'s server, and its URL: every test its own, so none collide. */
export async function emptyDatabase(url: string): Promise<string> {
  const name = uniqueDatabaseName("livecmd_test");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return withDatabase(url, name);
}

/** Runs `sql` with psql, as a person at a terminal would (a real client, another process). */
export function psql(url: string, sql: string): string {
  const ran = spawnSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-XAtqc", sql], {
    encoding: "utf8",
  });
  if (ran.status !== 0) throw new Error(`psql failed: ${ran.stderr}`);
  return ran.stdout.trim();
}

/** Whether livecmd's relay streams the database `url` names (its WAL sender, in the logical mode). */
export function relayStreams(url: string): boolean {
  return (
    psql(
      url,
      "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender' AND application_name = 'livecmd relay' AND datname = current_database()",
    ) === "1"
  );
}
