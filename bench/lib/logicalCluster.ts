import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processesCpuMs, processTree } from "./processCpu.ts";
import { REPO_ROOT } from "./processes.ts";

/** A throwaway PostgreSQL cluster with wal_level = logical, and how to remove it. */
export interface LogicalCluster {
  /** The `postgres` database's URL (a unix socket in the cluster's folder). */
  readonly url: string;
  /** The CPU time so far of the server and its backends running now, ms. */
  cpuMs(): number;
  /** Stops the server and removes its folder. */
  stop(): void;
}

const SCRIPT = path.join(REPO_ROOT, "scripts/postgres-cluster.sh");

/**
 * `scripts/postgres-cluster.sh start DIR logical`, the tests' and CI's logical cluster (fsync
 * off, synchronous_commit on, 400 connections), in a temporary folder.
 */
export function startLogicalCluster(): LogicalCluster {
  const dir = mkdtempSync(path.join(tmpdir(), "livecmd-bench-logical-"));
  let url: string;
  try {
    url = execFileSync("bash", [SCRIPT, "start", dir, "logical"], { encoding: "utf8" }).trim();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // The postmaster's pid is the first line of its pid file.
  const postmaster = () =>
    Number(readFileSync(path.join(dir, "data/postmaster.pid"), "utf8").split("\n")[0]);
  return {
    url,
    cpuMs: () => processesCpuMs(processTree(postmaster())),
    stop() {
      try {
        execFileSync("bash", [SCRIPT, "stop", dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
