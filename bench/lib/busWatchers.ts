import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { within } from "./captureChildren.ts";
import { REPO_ROOT } from "./processes.ts";
import type { Notified } from "./timedWrites.ts";

/** The changes the database told a watcher of, counted since it started. */
export interface Heard {
  /** Changes to `customers`, the table the bench writes. */
  customers: number;
  /** Changes to every table at once (a lost feed, a stream made again): each re-runs every watch. */
  everyTable: number;
}

/**
 * A process of the example app watching customers_show over a range of ids, or none (the
 * relay's and the bystander's): `bench/peers/busWatcher.ts`.
 */
export interface BusWatcher {
  readonly pid: number;
  /** Every notification so far, in the order told; the bench empties it between phases. */
  readonly told: Notified[];
  /** The rows whose re-run threw, in the order told; emptied with `told`. */
  readonly failed: number[];
  heard(): Promise<Heard>;
  /** Its user + system CPU time so far, µs. */
  cpu(): Promise<number>;
  /** Ends its stdin: it closes its app (relay, listener, bus connection, pool) and exits. */
  stop(): Promise<void>;
}

/** How long a watcher may take to start, answer or stop before the bench fails. */
const WAIT_MS = 60_000;

/**
 * Starts a watcher of customers_show/`first`..`first + count - 1` on `databaseUrl`, on the bus at
 * `bus` or (undefined) on today's NOTIFY feed; resolves once every watch has run. What it logs
 * on stderr goes to `said`.
 */
export async function busWatcher(
  databaseUrl: string,
  bus: string | undefined,
  { first, count }: { first: number; count: number },
  said: (line: string) => void,
): Promise<BusWatcher> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    FIRST: String(first),
    COUNT: String(count),
  };
  if (bus) env.LIVECMD_BUS = bus;
  else delete env.LIVECMD_BUS;
  const child = spawn(
    process.execPath,
    ["--conditions=livecmd-source", "--import", "tsx", "bench/peers/busWatcher.ts"],
    { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin.on("error", () => {});
  createInterface({ input: child.stderr }).on("line", said);
  const told: Notified[] = [];
  const failed: number[] = [];
  const waiting = {
    heard: [] as ((words: string[]) => void)[],
    cpu: [] as ((words: string[]) => void)[],
  };
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const [kind, ...words] = line.split(" ");
    if (kind === "told")
      told.push({ id: Number(words[0]), balance: Number(words[1]), at: Number(words[2]) });
    else if (kind === "failed") failed.push(Number(words[0]));
    else if (kind === "ready") ready();
    else if (kind === "heard" || kind === "cpu") waiting[kind].shift()?.(words);
  });
  const ask = (question: keyof typeof waiting) => {
    const answer = new Promise<string[]>((resolve) => waiting[question].push(resolve));
    child.stdin.write(`${question}\n`);
    return within(
      Promise.race([answer, exited.then(gone)]),
      `a watcher's answer to ${question}`,
      WAIT_MS,
    );
  };
  const stop = async () => {
    child.stdin.end();
    // One that does not stop in time is killed: the bench must not leave a process behind.
    await within(exited, "a watcher stops", WAIT_MS).catch(async (error: Error) => {
      child.kill("SIGKILL");
      await exited;
      throw error;
    });
  };
  try {
    await within(Promise.race([started, exited.then(gone)]), "a watcher is ready", WAIT_MS);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  return {
    pid: child.pid!,
    told,
    failed,
    async heard() {
      const [customers, everyTable] = await ask("heard");
      return { customers: Number(customers), everyTable: Number(everyTable) };
    },
    async cpu() {
      const [microseconds] = await ask("cpu");
      return Number(microseconds);
    },
    stop,
  };
}

function gone(): never {
  throw new Error("bench bus: a watcher exited");
}
