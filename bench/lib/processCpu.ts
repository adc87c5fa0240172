import { readdirSync, readFileSync } from "node:fs";

/** The kernel's clock ticks a second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat's times. */
const TICKS_PER_S = 100;

/** A process's fields of /proc/<pid>/stat after its name (which, in parentheses, may hold spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** A process's user + system CPU time so far, ms (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
}

/** The CPU time so far of those of `pids` still running, ms: one that has exited took its time with it. */
export function processesCpuMs(pids: Iterable<number>): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += processCpuMs(pid);
    } catch {
      // It exited.
    }
  }
  return total;
}

/** `pid` and its children running now: a PostgreSQL server's postmaster and its backends. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === pid) tree.push(Number(entry));
    } catch {
      // It exited between the listing and the read.
    }
  }
  return tree;
}
