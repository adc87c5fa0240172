/**
 * Issue 32, item 4: the endpoint mounted in an app's own server, against `serveHttp`'s server of
 * its own. The same example app read over the same requests (`resources/read` of
 * `app://customers_show/N`) from child processes: `serveHttp`, `mcpHandler` mounted in
 * Express (its `node` face) and in Hono on `@hono/node-server` (its `fetch` face).
 *
 *   npx tsx bench/mount.bench.ts        # prints this row alone, writes nothing
 */
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import {
  checkSameAnswers,
  connectClient,
  measureInterleaved,
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
  median,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";
import { runAlone } from "./read.bench.ts";

/** As the `resources/read` row's. */
const PLAN = READ_PLAN;

type Key = "serveHttp" | "express" | "hono" | "sdk" | "sdkExpress";

const SERVERS: { key: Key; label: string; script: string }[] = [
  { key: "serveHttp", label: "`serveHttp`", script: "bench/peers/livecmdServer.ts" },
  { key: "express", label: "mounted in Express", script: "bench/peers/expressServer.ts" },
  { key: "hono", label: "mounted in Hono", script: "bench/peers/honoServer.ts" },
  { key: "sdk", label: "SDK peer on `node:http`", script: "bench/peers/sdkServer.ts" },
  {
    key: "sdkExpress",
    label: "SDK peer mounted in Express",
    script: "bench/peers/sdkExpressServer.ts",
  },
];

/** The bound: mounting costs at most 5% on a read. */
const TARGET = { op: "<=", value: 1.05 } as const;

export const mountBench: BenchModule = {
  async run(context) {
    const servers = await Promise.all(SERVERS.map(({ script }) => startServer(script)));
    const clients: Client[] = [];
    try {
      const contenders: Contender<Key>[] = [];
      for (const [i, { key, label }] of SERVERS.entries()) {
        const client = await connectClient(servers[i]!.url, "mount-bench");
        clients.push(client);
        contenders.push({
          key,
          label,
          server: servers[i]!,
          request: (id) => readCustomer(client, id),
        });
      }
      await checkSameAnswers(contenders, [1, 2, 17, 500, PLAN.ids]);
      context.log(
        `mount: warm-up, then ${PLAN.rounds} rounds x ${SERVERS.length} servers x (${PLAN.sequential} sequential + ${PLAN.concurrent} at ${PLAN.concurrency} in flight)`,
      );
      return section(contenders, await measureInterleaved(contenders, PLAN));
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.all(servers.map(stopServer));
    }
  },
};

interface Figures {
  p50: Figure;
  p99: Figure;
  throughput: Figure;
  cpu: Figure;
}

function figuresOf(label: string, own: Samples): Figures {
  const read = `\`resources/read\` ${label}`;
  return {
    p50: figureOf(`${read}: latency, sequential (median = p50)`, "ms", own.latency, own.p50),
    p99: figureOf(`${read}: p99 latency, sequential (one per round)`, "ms", own.p99, own.p99),
    throughput: figureOf(
      `${read}: wall time per request, ${PLAN.concurrency} in flight (one per round)`,
      "µs",
      own.perRequest,
      own.perRequest,
    ),
    cpu: figureOf(`${read}: server CPU time per request (one per round)`, "µs", own.cpu, own.cpu),
  };
}

function section(contenders: Contender<Key>[], samples: Map<Key, Samples>): Section {
  const figures = new Map(
    contenders.map(({ key, label }) => [key, figuresOf(label, samples.get(key)!)]),
  );
  const own = figures.get("serveHttp")!;
  const comparisons: Comparison[] = [];
  for (const key of ["express", "hono"] as const) {
    const mounted = figures.get(key)!;
    const name = key === "express" ? "Express" : "Hono";
    comparisons.push(
      ratio(`mounted read p50: ${name} / \`serveHttp\``, mounted.p50, own.p50, TARGET),
      ratio(`mounted read p99: ${name} / \`serveHttp\``, mounted.p99, own.p99, TARGET),
      ratio(
        `mounted read, 16 in flight: ${name} / \`serveHttp\``,
        mounted.throughput,
        own.throughput,
      ),
      ratio(`mounted read server CPU per request: ${name} / \`serveHttp\``, mounted.cpu, own.cpu),
    );
  }
  // What Express itself costs a read: the same SDK handler mounted in it and on node:http.
  const sdk = figures.get("sdk")!;
  const sdkExpress = figures.get("sdkExpress")!;
  const express = figures.get("express")!;
  comparisons.push(
    ratio("SDK peer read p50: mounted in Express / on `node:http`", sdkExpress.p50, sdk.p50),
    ratio(
      "SDK peer server CPU per request: mounted in Express / on `node:http`",
      sdkExpress.cpu,
      sdk.cpu,
    ),
    {
      label:
        "mounted read p50 beyond what Express costs the SDK peer: (Express / `serveHttp`) / (SDK peer: Express / `node:http`)",
      value: median(
        express.p50.rounds!.map(
          (mounted, i) =>
            mounted / own.p50.rounds![i]! / (sdkExpress.p50.rounds![i]! / sdk.p50.rounds![i]!),
        ),
      ),
      unit: "x",
      target: TARGET,
    },
  );
  return {
    title: "The endpoint mounted in Express and Hono, against `serveHttp`",
    method: [
      'Child processes on 127.0.0.1 serve the example app on a fresh in-memory database (`createExampleApp(":memory:")`): `serveHttp(app, { port: 0 })` on its own `node:http` server (`bench/peers/livecmdServer.ts`); `mcpHandler(app)` mounted in Express 5 as `app.all("/mcp", mcp.node)` before the app\'s `express.json()`, as the docs and `examples/express` mount it (`bench/peers/expressServer.ts`); and `mcpHandler(app)` mounted in Hono as `app.all("/mcp", (c) => mcp.fetch(c.req.raw, getConnInfo(c)))`, served by `@hono/node-server` (`bench/peers/honoServer.ts`). Two more serve the SDK peer of the `resources/read` row (`bench/peers/sdkNodeHandler.ts`: `createMcpHandler` + `toNodeHandler`) on `node:http` (`sdkServer.ts`) and mounted in Express as the endpoint is (`sdkExpressServer.ts`): what Express itself costs a read, whoever answers it. None authenticates.',
      `Clients run in the bench process: one SDK \`Client\` per server over \`StreamableHTTPClientTransport\`, pinned to ${PROTOCOL}, reading \`app://customers_show/N\` with \`cacheMode: "bypass"\`; every server is first checked to give the same JSON for the same ids.`,
      `Ids cycle through customers 1..${PLAN.ids}. Warm-up: ${PLAN.warmUp} sequential requests and ${PLAN.warmUp} at ${PLAN.concurrency} in flight per server; then ${PLAN.rounds} rounds, each of ${PLAN.sequential} sequential requests to every server in turn, one request each (the first server rotating by round), timed one by one, so that a busy moment on the machine falls on all of them alike; then ${PLAN.concurrent} requests with ${PLAN.concurrency} in flight to each server, timed as a whole (\`bench/lib/httpRounds.ts\` \`measureInterleaved\`).`,
      "Every ratio reads mounted / `serveHttp` (<= 1.05 is the issue's bound: mounting costs at most 5%), the median of per-round ratios; Express itself adds more than that to a read, whoever answers it (the SDK peer's rows), so the last row holds livecmd's mount to the bound beyond what Express adds to the SDK's, round by round; throughput is wall time per request, so lower is better. Server CPU time per request is the child's `process.cpuUsage()` across a server's round, divided by its requests.",
    ],
    figures: [...figures.values()].flatMap(({ p50, p99, throughput, cpu }) => [
      p50,
      p99,
      throughput,
      cpu,
    ]),
    comparisons,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(mountBench);
