/**
 * Issue 5, row 5: `resources/read` over Streamable HTTP on 127.0.0.1. livecmd's server reading
 * `app://customers_show/N`, against `tools/call` of the same command on the same server and a
 * plain SDK `McpServer` with a hand-registered `ResourceTemplate` running the same statements.
 * Each server is a child process; the SDK clients run here, on their own event loop.
 *
 *   npx tsx bench/read.bench.ts        # prints this row alone, writes nothing
 */
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { createContext } from "./lib/context.ts";
import {
  checkSameAnswers,
  connectClient,
  measure,
  PROTOCOL,
  readCustomer,
  READ_PLAN,
  startServer,
  stopServer,
  type Contender,
  type Samples,
} from "./lib/httpRounds.ts";
import {
  figureOf,
  ratio,
  type BenchContext,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

const PLAN = READ_PLAN;
const { rounds: ROUNDS, sequential: SEQUENTIAL, concurrency: CONCURRENCY } = PLAN;
const { concurrent: CONCURRENT, warmUp: WARM_UP, ids: IDS } = PLAN;

type Key = "read" | "call" | "sdk";

export const readBench: BenchModule = {
  async run(context) {
    const livecmd = await startServer("bench/peers/livecmdServer.ts");
    const sdk = await startServer("bench/peers/sdkServer.ts");
    const clients: Client[] = [];
    try {
      const connect = async (url: URL) => {
        const client = await connectClient(url, "read-bench");
        clients.push(client);
        return client;
      };
      const livecmdClient = await connect(livecmd.url);
      const sdkClient = await connect(sdk.url);
      const contenders: Contender<Key>[] = [
        {
          key: "read",
          label: "livecmd `resources/read`",
          server: livecmd,
          request: (id) => readCustomer(livecmdClient, id),
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
          request: (id) => readCustomer(sdkClient, id),
        },
      ];
      await checkSameAnswers(contenders, [1, 2, 17, 500, IDS]);
      context.log(
        `read: warm-up, then ${ROUNDS} rounds x 3 contenders x (${SEQUENTIAL} sequential + ${CONCURRENT} at ${CONCURRENCY} in flight)`,
      );
      const samples = await measure(contenders, PLAN);
      return section(contenders, samples);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.all([stopServer(livecmd), stopServer(sdk)]);
    }
  },
};

function section(contenders: Contender<Key>[], samples: Map<Key, Samples>): Section {
  const figures = new Map<Key, { p50: Figure; p99: Figure; throughput: Figure; cpu: Figure }>();
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
