import { spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A throwaway PostgreSQL cluster that commits as a production one does, and how to remove it. */
export interface DurableCluster {
  /** The `postgres` database's URL (a unix socket in the cluster's folder). */
  readonly url: string;
  /** Stops the server and removes its folder. */
  stop(): void;
}

/**
 * Settings of `scripts/postgres-cluster.sh start DIR logical`, except durability: that script
 * turns fsync and synchronous_commit off for test speed, which takes the flush off the commit
 * path, and what change capture costs writers is waiting at that flush (NOTIFY's lock is held
 * until it is done). Here both are on, as are full-page writes, the server's defaults.
 */
const SETTINGS = [
  "listen_addresses=''",
  "max_connections=100",
  "fsync=on",
  "synchronous_commit=on",
  "full_page_writes=on",
  "wal_level=logical",
  "max_replication_slots=10",
  "max_wal_senders=10",
  "max_slot_wal_keep_size=1GB",
];

/** The newest PostgreSQL server binaries, where Debian installs them. */
function serverBin(): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error("no PostgreSQL server in /usr/lib/postgresql");
  return path.join("/usr/lib/postgresql", versions.at(-1)!, "bin");
}

/** Runs a server binary as the script does: initdb refuses root, so as root it runs as `postgres`. */
function asOwner(command: string, args: string[]): void {
  const ran =
    process.getuid?.() === 0
      ? spawnSync("runuser", ["-u", "postgres", "--", command, ...args], { encoding: "utf8" })
      : spawnSync(command, args, { encoding: "utf8" });
  if (ran.status !== 0)
    throw new Error(`${path.basename(command)} failed: ${ran.stderr || ran.stdout}`);
}

/** A new cluster in a temporary folder, with fsync and synchronous_commit on and wal_level logical. */
export function startDurableCluster(): DurableCluster {
  const bin = serverBin();
  const dir = mkdtempSync(path.join(tmpdir(), "livecmd-capture-"));
  if (process.getuid?.() === 0) {
    const owner = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    chownSync(dir, Number(owner.stdout.trim()), -1);
  }
  const data = path.join(dir, "data");
  const options = [...SETTINGS, `unix_socket_directories='${dir}'`]
    .map((setting) => `-c ${setting}`)
    .join(" ");
  try {
    asOwner(path.join(bin, "initdb"), [
      `--pgdata=${data}`,
      "--username=postgres",
      "--auth=trust",
      "--encoding=UTF8",
      "--locale=C",
    ]);
    asOwner(path.join(bin, "pg_ctl"), [
      `--pgdata=${data}`,
      `--log=${path.join(dir, "server.log")}`,
      "--wait",
      "--silent",
      "-o",
      options,
      "start",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@localhost/postgres?host=${dir}`,
    stop() {
      try {
        asOwner(path.join(bin, "pg_ctl"), [`--pgdata=${data}`, "--mode=fast", "--wait", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
