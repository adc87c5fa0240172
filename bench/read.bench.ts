/**
 * Issue 5, row 5: `resources/read` over Streamable HTTP on 127.0.0.1. livecmd's server reading
 * `app://customers_show/N`, against `tools/call` of the same command on the same server and a
 * plain SDK `McpServer` with a hand-registered `ResourceTemplate` running the same statements.
 * Each server is a child process; the SDK clients run here, on their own event loop.
 *
 *   npx tsx bench/read.bench.ts        # prints this row alone, writes nothing
 */
import { spawn, type ChildProcess } from "node:child_process";
import { deepStrictEqual } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createContext } from "./lib/context.ts";
import { LineStream, REPO_ROOT } from "./lib/processes.ts";
import {
  figureOf,
  ratio,
  type BenchContext,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

/** Many short rounds: on a shared machine, ratios are paired round by round (see `ratio`). */
const ROUNDS = 8;
/** Sequential requests per contender per round: 2,000 in all for p50/p99. */
const SEQUENTIAL = 250;
/** Requests in flight at once for throughput, and how many per contender per round. */
const CONCURRENCY = 16;
const CONCURRENT = 640;
const WARM_UP = 400;
/** Customers 1..IDS, cycled: every request reads a different row than the one before. */
const IDS = 1000;
const PROTOCOL = "2026-07-28";
const START_TIMEOUT_MS = 30_000;

interface Contender {
  key: "read" | "call" | "sdk";
  label: string;
  server: Server;
  request(id: number): Promise<string>;
}

interface Server {
  url: URL;
  child: ChildProcess;
  /** The child's user + system CPU time so far, in microseconds. */
  cpu(): Promise<number>;
}

/** Node flags for the server children, e.g. `READ_BENCH_SERVER_FLAGS=--cpu-prof` to profile them. */
const SERVER_FLAGS = (process.env.READ_BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);

export const readBench: BenchModule = {
  async run(context) {
    const livecmd = await startServer("bench/peers/livecmdServer.ts");
    const sdk = await startServer("bench/peers/sdkServer.ts");
    const clients: Client[] = [];
    try {
      const connect = async (url: URL) => {
        const client = new Client(
          { name: "read-bench", version: "0.0.0" },
          { versionNegotiation: { mode: { pin: PROTOCOL } } },
        );
        await client.connect(new StreamableHTTPClientTransport(url));
        clients.push(client);
        return client;
      };
      const livecmdClient = await connect(livecmd.url);
      const sdkClient = await connect(sdk.url);
      const readText = async (client: Client, id: number) => {
        const result = await client.readResource(
          { uri: `app://customers_show/${id}` },
          { cacheMode: "bypass" },
        );
        return (result.contents[0] as { text: string }).text;
      };
      const contenders: Contender[] = [
        {
          key: "read",
          label: "livecmd `resources/read`",
          server: livecmd,
          request: (id) => readText(livecmdClient, id),
        },
        {
          key: "call",
          label: "livecmd `tools/call`",
          server: livecmd,
          request: async (id) => {
            const result = await livecmdClient.callTool({
              name: "customers_show",
              arguments: { id },
            });
            if (result.isError)
              throw new Error(`tools/call customers_show ${id}: ${JSON.stringify(result.content)}`);
            return (result.content as { text: string }[])[0]!.text;
          },
        },
        {
          key: "sdk",
          label: "SDK `McpServer` + `ResourceTemplate` read",
          server: sdk,
          request: (id) => readText(sdkClient, id),
        },
      ];
      await checkSameAnswers(contenders);
      context.log(
        `read: warm-up, then ${ROUNDS} rounds x 3 contenders x (${SEQUENTIAL} sequential + ${CONCURRENT} at ${CONCURRENCY} in flight)`,
      );
      const samples = await measure(contenders);
      return section(contenders, samples);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.all([stopServer(livecmd), stopServer(sdk)]);
    }
  },
};

async function startServer(script: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [...SERVER_FLAGS, "--conditions=livecmd-source", "--import", "tsx", script],
    {
      cwd: REPO_ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    },
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
async function stopServer({ child }: Server): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Every contender answers every id with the same JSON text (the same rows, the same shape). */
async function checkSameAnswers(contenders: Contender[]): Promise<void> {
  for (const id of [1, 2, 17, 500, IDS]) {
    const [first, ...rest] = await Promise.all(
      contenders.map((contender) => contender.request(id)),
    );
    for (const text of rest) deepStrictEqual(JSON.parse(text), JSON.parse(first!));
  }
}

interface Samples {
  /** Milliseconds per sequential request, all rounds. */
  latency: number[];
  /** Each round's median of those. */
  p50: number[];
  /** Each round's server CPU time per request, sequential and concurrent together, in microseconds. */
  cpu: number[];
  /** Each round's 99th percentile of those. */
  p99: number[];
  /** Each round's wall time per request with CONCURRENCY in flight, in microseconds. */
  perRequest: number[];
}

const idOf = (i: number) => (i % IDS) + 1;

async function measure(contenders: Contender[]): Promise<Map<Contender["key"], Samples>> {
  for (const contender of contenders) {
    for (let i = 0; i < WARM_UP; i++) await contender.request(idOf(i));
    await concurrent(contender, WARM_UP);
  }
  const samples = new Map(
    contenders.map((contender) => [
      contender.key,
      { latency: [], p50: [], p99: [], perRequest: [], cpu: [] } as Samples,
    ]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    // A different contender goes first each round, so a slow spell on the machine hits them alike.
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const contender of order) {
      const own = samples.get(contender.key)!;
      const latencies: number[] = [];
      const cpuBefore = await contender.server.cpu();
      for (let i = 0; i < SEQUENTIAL; i++) {
        const started = performance.now();
        await contender.request(idOf(round * SEQUENTIAL + i));
        latencies.push(performance.now() - started);
      }
      own.latency.push(...latencies);
      own.p50.push(percentile(latencies, 0.5));
      own.p99.push(percentile(latencies, 0.99));
      own.perRequest.push(((await concurrent(contender, CONCURRENT)) * 1000) / CONCURRENT);
      own.cpu.push(((await contender.server.cpu()) - cpuBefore) / (SEQUENTIAL + CONCURRENT));
    }
  }
  return samples;
}

/** `total` requests, CONCURRENCY in flight; returns the wall time in milliseconds. */
async function concurrent(contender: Contender, total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) await contender.request(idOf(next++));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return performance.now() - started;
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function section(contenders: Contender[], samples: Map<Contender["key"], Samples>): Section {
  const figures = new Map<
    Contender["key"],
    { p50: Figure; p99: Figure; throughput: Figure; cpu: Figure }
  >();
  for (const contender of contenders) {
    const own = samples.get(contender.key)!;
    figures.set(contender.key, {
      p50: figureOf(
        `${contender.label}: latency, sequential (median = p50)`,
        "ms",
        own.latency,
        own.p50,
      ),
      p99: figureOf(
        `${contender.label}: p99 latency, sequential (one per round)`,
        "ms",
        own.p99,
        own.p99,
      ),
      throughput: figureOf(
        `${contender.label}: wall time per request, ${CONCURRENCY} in flight (one per round)`,
        "µs",
        own.perRequest,
        own.perRequest,
      ),
      cpu: figureOf(
        `${contender.label}: server CPU time per request (one per round)`,
        "µs",
        own.cpu,
        own.cpu,
      ),
    });
  }
  const read = figures.get("read")!;
  const comparisons: Comparison[] = [];
  const reqPerSecond = (figure: Figure) => Math.round(1e6 / figure.median);
  for (const peer of ["call", "sdk"] as const) {
    const other = figures.get(peer)!;
    const name = peer === "call" ? "`tools/call`" : "SDK `McpServer`";
    const noSlower = { op: "<=", value: 1 } as const;
    comparisons.push(
      ratio(`read p50: livecmd read / ${name}`, read.p50, other.p50, noSlower),
      ratio(`read p99: livecmd read / ${name}`, read.p99, other.p99, noSlower),
      ratio(
        `read throughput: ${name} req/s / livecmd read req/s`,
        read.throughput,
        other.throughput,
        noSlower,
      ),
      ratio(`read server CPU per request: livecmd read / ${name}`, read.cpu, other.cpu),
    );
  }
  return {
    title: "`resources/read` over Streamable HTTP on 127.0.0.1",
    method: [
      'Servers are child processes on 127.0.0.1: livecmd\'s `serveHttp(createExampleApp(":memory:"), { port: 0 })` (`bench/peers/livecmdServer.ts`) and a plain SDK `McpServer` with `ResourceTemplate("app://customers_show/{id}")`, `createMcpHandler` and `toNodeHandler` on `node:http` with the same Host/Origin checks, running customers_show\'s three statements (prepared once) on the example\'s schema and seed in memory (`bench/peers/sdkServer.ts`).',
      `Clients run in the bench process: one SDK \`Client\` per server over \`StreamableHTTPClientTransport\`, pinned to ${PROTOCOL}; reads use \`cacheMode: "bypass"\`; \`tools/call\` is \`customers_show({ id })\` on livecmd's server. Every contender is first checked to give the same JSON for the same ids.`,
      `Ids cycle through customers 1..${IDS}. Warm-up: ${WARM_UP} sequential requests and ${WARM_UP} at ${CONCURRENCY} in flight per contender; then ${ROUNDS} rounds, each contender in turn (a different one first each round): ${SEQUENTIAL} sequential requests timed one by one, then ${CONCURRENT} with ${CONCURRENCY} in flight timed as a whole.`,
      "Latency is per request from the client's call to its resolved result (p50 is the median of all rounds' requests, p99 is taken per round); throughput is shown as wall time per request at that concurrency, so lower is better and every ratio reads livecmd / peer (<= 1 means no slower). Ratios are the median of per-round ratios.",
      "Server CPU time per request: the server child's \`process.cpuUsage()\` (user + system) across a contender's round, divided by its requests; it does not depend on how busy the rest of the machine is, as the wall-clock figures do.",
    ],
    figures: [...figures.values()].flatMap(({ p50, p99, throughput, cpu }) => [
      p50,
      p99,
      throughput,
      cpu,
    ]),
    comparisons,
    notes: [
      `Throughput at ${CONCURRENCY} in flight, by median round: ${contenders.map((c) => `${c.label} ${reqPerSecond(figures.get(c.key)!.throughput)} req/s`).join("; ")}.`,
    ],
  };
}

/** `npx tsx bench/read.bench.ts`: this row alone, printed. */
export async function runAlone(
  module: BenchModule,
  context: BenchContext = createContext(),
): Promise<void> {
  const { renderReport, environmentNow } = await import("./report.ts");
  const os = await import("node:os");
  const started = performance.now();
  const environment = environmentNow();
  const section = await module.run(context);
  process.stdout.write(
    renderReport(
      {
        ...environment,
        loadAfter: os.loadavg()[0]!,
        seconds: (performance.now() - started) / 1000,
      },
      [section],
    ),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(readBench);
