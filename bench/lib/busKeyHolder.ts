import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { within } from "./captureChildren.ts";
import { REPO_ROOT } from "./processes.ts";

/** A process's memory after a full collection, bytes. */
export interface Memory {
  heapUsed: number;
  rss: number;
}

/** A process holding key routes through livecmd's bus listener (`bench/peers/busKeyHolder.ts`). */
export interface BusKeyHolder {
  readonly pid: number;
  /** Routes `count` more key values to it; resolves once the server has its subscriptions. */
  add(count: number): Promise<void>;
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

/** 100,000 subscriptions take a few seconds on a busy core: the answer to `add` may take that long. */
const WAIT_MS = 60_000;

/** Starts a key holder on the bus at `bus` for the database at `databaseUrl`; resolves once it listens. */
export async function busKeyHolder(databaseUrl: string, bus: string): Promise<BusKeyHolder> {
  const child = spawn(
    process.execPath,
    [
      ...["--expose-gc", "--conditions=livecmd-source", "--import", "tsx"],
      "bench/peers/busKeyHolder.ts",
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, LIVECMD_BUS: bus },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin.on("error", () => {});
  const waiting = {
    add: [] as ((words: string[]) => void)[],
    memory: [] as ((words: string[]) => void)[],
  };
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const [kind, ...words] = line.split(" ");
    if (kind === "ready") ready();
    else if (kind === "add" || kind === "memory") waiting[kind].shift()?.(words);
  });
  const ask = (line: string, question: keyof typeof waiting) => {
    const answer = new Promise<string[]>((resolve) => waiting[question].push(resolve));
    child.stdin.write(`${line}\n`);
    return within(
      Promise.race([answer, exited.then(gone)]),
      `the key holder's answer to ${line}`,
      WAIT_MS,
    );
  };
  try {
    await within(Promise.race([started, exited.then(gone)]), "the key holder listens", WAIT_MS);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  return {
    pid: child.pid!,
    async add(count) {
      await ask(`add ${count}`, "add");
    },
    async memory() {
      const [heapUsed, rss] = await ask("memory", "memory");
      return { heapUsed: Number(heapUsed), rss: Number(rss) };
    },
    async stop() {
      child.stdin.end();
      await within(exited, "the key holder stops", WAIT_MS).catch(async (error: Error) => {
        child.kill("SIGKILL");
        await exited;
        throw error;
      });
    },
  };
}

function gone(): never {
  throw new Error("bench bus: the key holder exited");
}
