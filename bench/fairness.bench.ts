/**
 * Issue 11: fair re-runs. One write that re-runs 65,536 subscriptions must not hold up reads:
 * read p99 over Streamable HTTP while the re-runs drain, against read p99 on the same server
 * idle, in the same rounds; and the re-run throughput against the same command run in a plain
 * loop (the floor: what the re-runs cost without any scheduling).
 *
 *   npx tsx bench/fairness.bench.ts        # prints this row alone, writes nothing
 */
import { deepStrictEqual } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExampleApp } from "../example/app.ts";
import type { App } from "../packages/livecmd/runtime/model/app.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import { LiveRegistry } from "../packages/livecmd/runtime/live/liveRegistry.ts";
import { serveHttp } from "../packages/livecmd/runtime/server/index.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  percentile,
  ratio,
  type BenchModule,
  type Figure,
  type Section,
} from "./lib/section.ts";

/** 2,000 customers watched by 33 principals (the last in part): 65,536 subscriptions, each its own group. */
const IDS = 2000;
const PRINCIPALS = Math.ceil(65_536 / IDS);
const SUBSCRIPTIONS = 65_536;
const ROUNDS = 3;
const IDLE_READS = 300;

interface Round {
  idle: number[];
  during: number[];
  /** Re-runs per second while the burst drained. */
  rerunRate: number;
  /** The same command run in a plain loop, per second. */
  loopRate: number;
}

export const fairnessBench: BenchModule = {
  async run(context) {
    const app = createExampleApp(":memory:");
    // An audit middleware that looks at the principal: every run may differ by principal, so
    // each (command, arguments, principal) keeps its own group, as all did before cohorts.
    app.use((invocation, next) => (void invocation.auth, next()));
    const serving = await serveHttp(app, { port: 0 });
    const registry = new LiveRegistry(app);
    const client = new Client(
      { name: "fairness", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(serving.url));
    try {
      context.log(`fairness: holding ${SUBSCRIPTIONS} subscriptions (${PRINCIPALS} principals)`);
      await subscribe(registry);
      const rounds: Round[] = [];
      for (let round = 0; round < ROUNDS; round++)
        rounds.push(await measureRound(app, registry, client));
      return section(rounds);
    } finally {
      await client.close();
      registry.close();
      await serving.close();
    }
  },
};

async function subscribe(registry: LiveRegistry): Promise<void> {
  const adds: Promise<() => void>[] = [];
  for (let n = 0; n < SUBSCRIPTIONS; n++) {
    const id = (n % IDS) + 1;
    const auth: AuthInfo = { token: "", clientId: `p${Math.floor(n / IDS)}`, scopes: [] };
    adds.push(
      registry.add(
        "customers_show",
        [id],
        { uri: `app://customers_show/${id}`, notify() {} },
        auth,
      ),
    );
    // Bounded, so that the first runs do not all wait in memory at once.
    if (adds.length === 1024) await Promise.all(adds.splice(0));
  }
  await Promise.all(adds);
  await registry.settled();
  deepStrictEqual(registry.stats().groups, SUBSCRIPTIONS);
}

async function measureRound(app: App, registry: LiveRegistry, client: Client): Promise<Round> {
  const read = async (id: number) => {
    const started = performance.now();
    await client.readResource({ uri: `app://customers_show/${id}` }, { cacheMode: "bypass" });
    return performance.now() - started;
  };
  const idle: number[] = [];
  for (let i = 0; i < IDLE_READS; i++) idle.push(await read((i % IDS) + 1));

  const rerunsBefore = registry.stats().reruns;
  const started = performance.now();
  // One write to every customer: every watched row changed.
  await app.db.run("UPDATE customers SET balance = balance + 1");
  let drained = false;
  const settled = registry.settled().then(() => (drained = true));
  const during: number[] = [];
  for (let i = 0; !drained; i++) during.push(await read((i % IDS) + 1));
  await settled;
  const seconds = (performance.now() - started) / 1000;
  const reruns = registry.stats().reruns - rerunsBefore;
  deepStrictEqual(reruns, SUBSCRIPTIONS, "the write re-runs every subscription");

  const loopStarted = performance.now();
  for (let n = 0; n < SUBSCRIPTIONS; n++)
    await app.run("customers_show", [(n % IDS) + 1], { origin: Origin.Agent });
  const loopSeconds = (performance.now() - loopStarted) / 1000;
  return {
    idle,
    during,
    rerunRate: reruns / seconds,
    loopRate: SUBSCRIPTIONS / loopSeconds,
  };
}

function section(rounds: Round[]): Section {
  const perRound = (label: string, pick: (round: Round) => number): Figure => {
    const values = rounds.map(pick);
    return figureOf(label, "ms", values, values);
  };
  const idleP99 = perRound("read p99, idle (one per round)", (r) => percentile(r.idle, 0.99));
  const duringP99 = perRound("read p99, during the re-runs (one per round)", (r) =>
    percentile(r.during, 0.99),
  );
  const idleP50 = perRound("read p50, idle", (r) => percentile(r.idle, 0.5));
  const duringP50 = perRound("read p50, during the re-runs", (r) => percentile(r.during, 0.5));
  // Rates as ms per 1,000 runs, so that they share the report's time units.
  const rerun = perRound("re-runs after the write: ms per 1,000", (r) => 1e6 / r.rerunRate);
  const loop = perRound("the same runs in a plain loop: ms per 1,000", (r) => 1e6 / r.loopRate);
  const reads = rounds.reduce((sum, r) => sum + r.during.length, 0);
  return {
    title: "Fair re-runs: reads while one write re-runs 65,536 subscriptions",
    method: [
      `The example app on a fresh in-memory database served over Streamable HTTP on 127.0.0.1 (2026-07-28), and in the same process a \`LiveRegistry\` holding ${SUBSCRIPTIONS} subscriptions: \`customers_show\` of customers 1..${IDS}, watched by ${PRINCIPALS} principals, each (command, arguments, principal) its own group (an audit middleware reads \`ctx.auth\`), so one write to every customer re-runs all ${SUBSCRIPTIONS}.`,
      `${ROUNDS} rounds: ${IDLE_READS} sequential \`resources/read\` of customers_show through the SDK client, idle; then one write to every customer (\`UPDATE customers SET balance = balance + 1\`) and sequential reads until the registry has settled (${reads} reads during the re-runs in all); then the same ${SUBSCRIPTIONS} runs awaited one by one in a plain loop.`,
      "Client, server and registry share one event loop, as a server's registry and its HTTP front do.",
    ],
    figures: [idleP50, idleP99, duringP50, duringP99, rerun, loop],
    comparisons: [
      ratio("read p99 during the re-runs / idle", duringP99, idleP99, { op: "<=", value: 3 }),
      ratio("re-run time per run, sliced / plain loop", rerun, loop),
      {
        label: "re-runs per second while reads go on",
        value: median(rounds.map((r) => r.rerunRate)),
        unit: "per s",
      },
    ],
  };
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(fairnessBench);
