/**
 * Reads over Streamable HTTP from servers run as child processes, timed in rounds: what the
 * `resources/read` row and the mounted-endpoint row share. The SDK clients run in the bench
 * process, on their own event loop; each server child answers `cpu` lines (`childControl.ts`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { deepStrictEqual } from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { LineStream, REPO_ROOT } from "./processes.ts";
import { percentile } from "./section.ts";

export const PROTOCOL = "2026-07-28";
const START_TIMEOUT_MS = 30_000;

/** One side of a comparison: a request to time, against one server. */
export interface Contender<Key extends string = string> {
  key: Key;
  label: string;
  server: Server;
  request(id: number): Promise<string>;
}

export interface Server {
  url: URL;
  child: ChildProcess;
  /** The child's user + system CPU time so far, in microseconds. */
  cpu(): Promise<number>;
}

/** How many requests of each kind, in how many rounds. */
export interface RoundPlan {
  rounds: number;
  /** Sequential requests per contender per round, timed one by one (p50/p99). */
  sequential: number;
  /** Requests in flight at once for throughput, and how many per contender per round. */
  concurrency: number;
  concurrent: number;
  warmUp: number;
  /** Ids 1..ids, cycled: every request reads a different row than the one before. */
  ids: number;
}

/**
 * The reads rows' plan: many short rounds (on a shared machine, ratios are paired round by
 * round, see `ratio`), 2,000 sequential requests in all for p50/p99, customers 1..1000 cycled.
 */
export const READ_PLAN: RoundPlan = {
  rounds: 8,
  sequential: 250,
  concurrency: 16,
  concurrent: 640,
  warmUp: 400,
  ids: 1000,
};

export interface Samples {
  /** Milliseconds per sequential request, all rounds. */
  latency: number[];
  /** Each round's median of those. */
  p50: number[];
  /** Each round's 99th percentile of those. */
  p99: number[];
  /** Each round's wall time per request with `concurrency` in flight, in microseconds. */
  perRequest: number[];
  /** Each round's server CPU time per request, sequential and concurrent together, in microseconds. */
  cpu: number[];
}

/** Node flags for the server children, e.g. `READ_BENCH_SERVER_FLAGS=--cpu-prof` to profile them. */
const SERVER_FLAGS = (process.env.READ_BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);

/** `node --import tsx script` from the repository, once it prints `listening <url>`. */
export async function startServer(script: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [...SERVER_FLAGS, "--conditions=livecmd-source", "--import", "tsx", script],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = new LineStream(child.stdout!);
  try {
    const line = await lines.next(/^listening /, START_TIMEOUT_MS);
    const cpu = async () => {
      child.stdin!.write("cpu\n");
      return Number((await lines.next(/^cpu \d+$/, START_TIMEOUT_MS)).text.slice(4));
    };
    return { url: new URL(line.text.slice("listening ".length)), child, cpu };
  } catch (error) {
    child.kill();
    throw error;
  }
}

/** Closes its stdin (the server exits cleanly, writing a profile if asked), SIGKILL after 5 s. */
export async function stopServer({ child }: Server): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** An SDK client of `url`, pinned to `PROTOCOL`. */
export async function connectClient(url: URL, name: string): Promise<Client> {
  const client = new Client(
    { name, version: "0.0.0" },
    { versionNegotiation: { mode: { pin: PROTOCOL } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** The text of `app://customers_show/{id}` as `client` reads it, past its cache. */
export async function readCustomer(client: Client, id: number): Promise<string> {
  const result = await client.readResource(
    { uri: `app://customers_show/${id}` },
    { cacheMode: "bypass" },
  );
  return (result.contents[0] as { text: string }).text;
}

/** Every contender answers every id with the same JSON text (the same rows, the same shape). */
export async function checkSameAnswers(
  contenders: readonly Contender[],
  ids: readonly number[],
): Promise<void> {
  for (const id of ids) {
    const [first, ...rest] = await Promise.all(
      contenders.map((contender) => contender.request(id)),
    );
    for (const text of rest) deepStrictEqual(JSON.parse(text), JSON.parse(first!));
  }
}

/** Warms each contender up, then times them round by round, a different one first each round. */
export async function measure<Key extends string>(
  contenders: readonly Contender<Key>[],
  plan: RoundPlan,
): Promise<Map<Key, Samples>> {
  await warmUp(contenders, plan);
  const samples = emptySamples(contenders);
  for (let round = 0; round < plan.rounds; round++) {
    // A slow spell on the machine hits them alike.
    for (const contender of rotated(contenders, round)) {
      const cpuBefore = await contender.server.cpu();
      const latencies: number[] = [];
      for (let i = 0; i < plan.sequential; i++)
        latencies.push(await timed(contender, idOf(round * plan.sequential + i, plan)));
      const wall = await concurrent(contender, plan.concurrent, plan);
      const cpu = (await contender.server.cpu()) - cpuBefore;
      record(samples.get(contender.key)!, latencies, wall, cpu, plan);
    }
  }
  return samples;
}

/**
 * As `measure`, but each round's sequential requests go to the contenders in turn, one request
 * each (the first of each turn rotating by round), so that a busy moment on the machine falls on
 * all of them alike, not on one contender's stretch: for contenders that make the same request of
 * different servers. Each server's CPU time is still its own (a child process of its own).
 */
export async function measureInterleaved<Key extends string>(
  contenders: readonly Contender<Key>[],
  plan: RoundPlan,
): Promise<Map<Key, Samples>> {
  await warmUp(contenders, plan);
  const samples = emptySamples(contenders);
  for (let round = 0; round < plan.rounds; round++) {
    const order = rotated(contenders, round);
    const cpuBefore = await Promise.all(order.map((contender) => contender.server.cpu()));
    const latencies = order.map((): number[] => []);
    for (let i = 0; i < plan.sequential; i++) {
      const id = idOf(round * plan.sequential + i, plan);
      for (const [c, contender] of order.entries()) latencies[c]!.push(await timed(contender, id));
    }
    for (const [c, contender] of order.entries()) {
      const wall = await concurrent(contender, plan.concurrent, plan);
      const cpu = (await contender.server.cpu()) - cpuBefore[c]!;
      record(samples.get(contender.key)!, latencies[c]!, wall, cpu, plan);
    }
  }
  return samples;
}

async function warmUp(contenders: readonly Contender[], plan: RoundPlan): Promise<void> {
  for (const contender of contenders) {
    for (let i = 0; i < plan.warmUp; i++) await contender.request(idOf(i, plan));
    await concurrent(contender, plan.warmUp, plan);
  }
}

function emptySamples<Key extends string>(
  contenders: readonly Contender<Key>[],
): Map<Key, Samples> {
  return new Map(
    contenders.map((contender) => [
      contender.key,
      { latency: [], p50: [], p99: [], perRequest: [], cpu: [] } as Samples,
    ]),
  );
}

/** One round's figures of a contender: its sequential latencies, concurrent wall time and CPU. */
function record(
  own: Samples,
  latencies: number[],
  wallMs: number,
  cpuMicros: number,
  plan: RoundPlan,
): void {
  own.latency.push(...latencies);
  own.p50.push(percentile(latencies, 0.5));
  own.p99.push(percentile(latencies, 0.99));
  own.perRequest.push((wallMs * 1000) / plan.concurrent);
  own.cpu.push(cpuMicros / (plan.sequential + plan.concurrent));
}

function rotated<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]!);
}

/** Ids 1..plan.ids, cycled. */
function idOf(i: number, plan: RoundPlan): number {
  return (i % plan.ids) + 1;
}

/** One request, in milliseconds. */
async function timed(contender: Contender, id: number): Promise<number> {
  const started = performance.now();
  await contender.request(id);
  return performance.now() - started;
}

/** `total` requests, `plan.concurrency` in flight; returns the wall time in milliseconds. */
async function concurrent(contender: Contender, total: number, plan: RoundPlan): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) await contender.request(idOf(next++, plan));
  };
  await Promise.all(Array.from({ length: plan.concurrency }, worker));
  return performance.now() - started;
}
