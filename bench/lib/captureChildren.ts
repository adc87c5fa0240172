import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./processes.ts";

/** Change capture as the capture bench sees it: none, or one of livecmd's two modes. */
export type Capture = "none" | "triggers" | "logical";

/** A child process listening to the change feed (`bench/peers/captureListener.ts`). */
export interface CaptureChild {
  /** Resolves with the wall-clock time it began streaming the slot (`logical` only). */
  relaying(): Promise<number>;
  /** The wall-clock time it next hears a change to `bench_pulse`'s row `id`. */
  pulse(id: number): Promise<number>;
  /** The notifications of `bench_rows` it has heard so far. */
  count(): Promise<number>;
  /** Its user + system CPU time so far, µs. */
  cpu(): Promise<number>;
  /** SIGKILL, as a crash or the OOM killer would end it, sent now; resolves once it has exited. */
  kill(): Promise<void>;
  /** Ends its stdin: it closes its relay, listener and pool, and exits. */
  stop(): Promise<void>;
}

/** How long a child may take to answer or to hear what it should before the bench fails. */
const WAIT_MS = 30_000;

/** `promise`, or a failure naming `what` after `ms`. */
export function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench capture: ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Starts a listening child in `capture` mode on `databaseUrl` and resolves once it listens;
 * each line it logs goes to `said`, so the report can say what the relay complained of.
 */
export async function captureChild(
  databaseUrl: string,
  capture: Exclude<Capture, "none">,
  said: (line: string) => void,
): Promise<CaptureChild> {
  const child = spawn(
    process.execPath,
    ["--conditions=livecmd-source", "--import", "tsx", "bench/peers/captureListener.ts"],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, CAPTURE: capture },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Stopping a child the bench killed writes to a closed pipe: nothing to tell.
  child.stdin.on("error", () => {});
  const pulses = new Map<string, (at: number) => void>();
  const answers = {
    count: [] as ((value: number) => void)[],
    cpu: [] as ((value: number) => void)[],
  };
  let ready!: () => void;
  let relayed!: (at: number) => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  const relaying = new Promise<number>((resolve) => (relayed = resolve));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const [kind, first, second] = line.split(" ");
    if (kind === "ready") ready();
    else if (kind === "relaying") relayed(Number(first));
    else if (kind === "count" || kind === "cpu") answers[kind].shift()?.(Number(first));
    else if (kind === "log") said(line.slice("log ".length));
    else if (kind === "pulse") {
      pulses.get(first!)?.(Number(second));
      pulses.delete(first!);
    }
  });
  const ask = (question: keyof typeof answers) => {
    const answer = new Promise<number>((resolve) => answers[question].push(resolve));
    child.stdin.write(`${question}\n`);
    return within(answer, `a child's answer to ${question}`);
  };
  await within(started, `a ${capture} child listens`);
  return {
    relaying: () => within(relaying, `a ${capture} child relays`),
    pulse: (id) => new Promise((resolve) => pulses.set(String(id), resolve)),
    count: () => ask("count"),
    cpu: () => ask("cpu"),
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.stdin.end();
      await within(exited, "a child stops");
    },
  };
}
