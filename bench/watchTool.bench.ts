/**
 * Issue 33: the watch tool against a listen, on one `serveHttp` of the example app (a child
 * process, `peers/watchServer.ts`). From a write to the answer of a watch call waiting on the
 * written customer, against the same write's `notifications/resources/updated` on a listen of
 * the same URI (and that notification followed by the read a subscribing client makes): both
 * wait on one registry group, so one re-run answers both and the difference is the way out.
 * Then 1,000 watch calls waiting at once over HTTP against 1,000 listens: the server's heap per
 * waiting call or listen, and the re-runs of one write.
 *
 *   npm run bench -- watch-tool        # this row alone, printed, nothing written
 */
import { spawn, type ChildProcess } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  Client,
  StreamableHTTPClientTransport,
  type McpSubscription,
} from "@modelcontextprotocol/client";
import type { WatchAnswer } from "../packages/livecmd/runtime/model/watchTool.ts";
import { LineStream, REPO_ROOT } from "./lib/processes.ts";
import { wallClock } from "./lib/pgWatchers.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  percentile,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

const ROUNDS = 5;
const WRITES_PER_ROUND = 40;
const WAITING = 1000;
/**
 * Calls and listens opened this many at a time, each batch waiting before the next: a thousand
 * connections opened at once overflow the listening socket's backlog (Node's 511), and the
 * kernel's SYN retries (1 s, 3 s, ...) would be measured instead.
 */
const RAMP = 100;
const START_TIMEOUT_MS = 60_000;
const WATCH = "watch_resources";
const show = (id: number) => `app://customers_show/${id}`;

interface Server {
  child: ChildProcess;
  url: URL;
  ask(command: string): Promise<string>;
}

interface Latencies {
  /** Per round, per write: write began → each way of hearing of it, ms. */
  listen: number[][];
  listenRead: number[][];
  watch: number[][];
}

interface Waiting {
  heapPerCall: number;
  reruns: number;
}

export const watchToolBench: BenchModule = {
  async run(context) {
    const server = await startServer();
    const clients: Client[] = [];
    try {
      context.log(`watch tool: ${ROUNDS} rounds of ${WRITES_PER_ROUND} writes, watch vs listen`);
      const latencies = await measureLatency(server, clients);
      context.log(`watch tool: ${WAITING} waiting calls vs ${WAITING} listens over HTTP`);
      const calls = await measureWaitingCalls(server, clients);
      const listens = await measureListens(server, clients);
      return section(latencies, calls, listens);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await stopServer(server);
    }
  },
};

async function startServer(): Promise<Server> {
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--conditions=livecmd-source", "--import", "tsx", "bench/peers/watchServer.ts"],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = new LineStream(child.stdout!);
  const line = await lines.next(/^listening /, START_TIMEOUT_MS);
  const ask = async (command: string) => {
    const name = command.split(" ")[0]!;
    child.stdin!.write(`${command}\n`);
    return (await lines.next(new RegExp(`^${name} `), START_TIMEOUT_MS)).text.slice(
      name.length + 1,
    );
  };
  return { child, url: new URL(line.text.slice("listening ".length)), ask };
}

async function stopServer({ child }: Server): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

async function client(url: URL, clients: Client[]): Promise<Client> {
  const made = new Client(
    { name: "bench-watch-tool", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await made.connect(new StreamableHTTPClientTransport(url));
  clients.push(made);
  return made;
}

async function watch(
  caller: Client,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<WatchAnswer> {
  const result = await caller.callTool({ name: WATCH, arguments: args }, signal && { signal });
  if (result.isError) throw new Error(`bench watch tool: ${JSON.stringify(result.content)}`);
  return result.structuredContent as unknown as WatchAnswer;
}

async function stats(server: Server): Promise<{ subscriptions: number; reruns: number }> {
  return JSON.parse(await server.ask("stats")) as { subscriptions: number; reruns: number };
}

async function until(server: Server, subscriptions: number): Promise<void> {
  for (let tries = 0; (await stats(server)).subscriptions !== subscriptions; tries++) {
    if (tries > 2000) throw new Error(`bench watch tool: never ${subscriptions} subscriptions`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Each write renames customer 1, which a listen and a waiting watch call both watch: the write
 * begins (the server's clock) → the listen's notification arrives, its client's read of the
 * URI returns, and the watch call's answer arrives (the bench's clock; one machine).
 */
async function measureLatency(server: Server, clients: Client[]): Promise<Latencies> {
  const listener = await client(server.url, clients);
  const watcher = await client(server.url, clients);
  let heard: ((at: number) => void) | undefined;
  listener.setNotificationHandler("notifications/resources/updated", () => heard?.(wallClock()));
  const listen = await listener.listen({ resourceSubscriptions: [show(1)] });
  let { resources } = await watch(watcher, { resources: [{ uri: show(1) }] });
  const latencies: Latencies = { listen: [], listenRead: [], watch: [] };
  for (let round = 0; round < ROUNDS; round++) {
    latencies.listen.push([]);
    latencies.listenRead.push([]);
    latencies.watch.push([]);
    for (let write = 0; write < WRITES_PER_ROUND; write++) {
      const answered = watch(watcher, { resources, timeoutMs: 25_000 }).then((answer) => ({
        answer,
        at: wallClock(),
      }));
      await until(server, 2);
      const read = new Promise<{ notified: number; read: number }>((resolve) => {
        heard = (notified) =>
          void listener
            .readResource({ uri: show(1) }, { cacheMode: "bypass" })
            .then(() => resolve({ notified, read: wallClock() }));
      });
      const began = Number(await server.ask(`rename 1 Ada-${round}-${write}`));
      const [listened, watched] = await Promise.all([read, answered]);
      heard = undefined;
      if (watched.answer.status !== "changed") throw new Error("bench watch tool: no change told");
      resources = watched.answer.resources;
      latencies.listen[round]!.push(listened.notified - began);
      latencies.listenRead[round]!.push(listened.read - began);
      latencies.watch[round]!.push(watched.at - began);
    }
  }
  await listen.close();
  return latencies;
}

/** 1,000 watch calls waiting at once, each on its own customer; then one write. */
async function measureWaitingCalls(server: Server, clients: Client[]): Promise<Waiting> {
  const caller = await client(server.url, clients);
  const versions: { uri: string; version: string }[] = [];
  for (let first = 1; first <= WAITING; first += 64) {
    const uris = Array.from({ length: Math.min(64, WAITING + 1 - first) }, (_, i) => ({
      uri: show(first + i),
    }));
    versions.push(...(await watch(caller, { resources: uris })).resources);
  }
  const before = Number(await server.ask("heap"));
  const cancels = versions.map(() => new AbortController());
  const waiting: Promise<WatchAnswer | undefined>[] = [];
  for (let first = 0; first < WAITING; first += RAMP) {
    for (const [at, resource] of versions.slice(first, first + RAMP).entries())
      waiting.push(
        watch(
          caller,
          { resources: [resource], timeoutMs: 25_000 },
          cancels[first + at]!.signal,
        ).catch(() => undefined),
      );
    await until(server, waiting.length);
  }
  const heapPerCall = (Number(await server.ask("heap")) - before) / WAITING;
  const { reruns } = await stats(server);
  await server.ask("rename 500 Somebody-Else");
  const answer = await waiting[499];
  if (answer?.status !== "changed") throw new Error("bench watch tool: call 500 was not told");
  const rerunsOfOneWrite = (await stats(server)).reruns - reruns;
  for (const cancel of cancels) cancel.abort();
  await Promise.all(waiting);
  await until(server, 0);
  return { heapPerCall, reruns: rerunsOfOneWrite };
}

/** The peer: 1,000 listens, each of its own customer, held open at once; then one write. */
async function measureListens(server: Server, clients: Client[]): Promise<Waiting> {
  const listener = await client(server.url, clients);
  const before = Number(await server.ask("heap"));
  const listens: McpSubscription[] = [];
  for (let first = 0; first < WAITING; first += RAMP) {
    listens.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(RAMP, WAITING - first) }, (_, i) =>
          listener.listen({ resourceSubscriptions: [show(first + i + 1)] }),
        ),
      )),
    );
    await until(server, listens.length);
  }
  const heapPerCall = (Number(await server.ask("heap")) - before) / WAITING;
  const { reruns } = await stats(server);
  await server.ask("rename 501 Somebody-Else");
  const rerunsOfOneWrite = (await stats(server)).reruns - reruns;
  await Promise.all(listens.map((listen) => listen.close()));
  await until(server, 0);
  return { heapPerCall, reruns: rerunsOfOneWrite };
}

function section(latencies: Latencies, calls: Waiting, listens: Waiting): Section {
  const figure = (label: string, rounds: number[][]): Figure =>
    figureOf(
      label,
      "ms",
      rounds.flat(),
      rounds.map((samples) => figureOf(label, "ms", samples).median),
    );
  const listen = figure("write → listen notification", latencies.listen);
  const listenRead = figure(
    "write → listen notification, then resources/read",
    latencies.listenRead,
  );
  const watchAnswer = figure("write → watch tool answer", latencies.watch);
  const p99 = (label: string, rounds: number[][]): Figure => ({
    ...figureOf(label, "ms", rounds.flat()),
    median: percentile(rounds.flat(), 0.99),
  });
  const listenP99 = p99("p99 write → listen notification", latencies.listen);
  const watchP99 = p99("p99 write → watch tool answer", latencies.watch);
  const count = (label: string, value: number): Comparison => ({ label, value, unit: "x" });
  const comparisons: Comparison[] = [
    ratio("watch tool p50: write → answer / write → listen notification", watchAnswer, listen, {
      op: "<=",
      value: 1.2,
    }),
    ratio("watch tool p99: write → answer / write → listen notification", watchP99, listenP99, {
      op: "<=",
      value: 1.2,
    }),
    ratio(
      "watch tool p50: write → answer / write → listen notification and read",
      watchAnswer,
      listenRead,
    ),
    { label: "watch tool p50: write → answer", value: watchAnswer.median, unit: "ms" },
    { label: "watch tool p99: write → answer", value: watchP99.median, unit: "ms" },
    count(`${WAITING} waiting watch calls: re-runs of one write`, calls.reruns),
    count(`${WAITING} listens: re-runs of one write`, listens.reruns),
    {
      label: `${WAITING} waiting watch calls: heap per call`,
      value: calls.heapPerCall,
      unit: "bytes",
    },
    { label: `${WAITING} listens: heap per listen`, value: listens.heapPerCall, unit: "bytes" },
    count("heap per waiting watch call / per listen", calls.heapPerCall / listens.heapPerCall),
  ];
  return {
    title: "The watch tool against a listen, over Streamable HTTP on 127.0.0.1",
    method: [
      "`serveHttp` of the example app on a fresh in-memory SQLite, in a child process (`bench/peers/watchServer.ts`); 2026-07-28 SDK clients in the bench process.",
      `Latency: a listen of \`${show(1)}\` and, for each write, a watch call waiting on it with the version last seen (\`timeoutMs\` 25 s); the write is the app's own \`customers_rename\` of customer 1 in the server process. From just before the write began (the server's wall clock) to the arrival of the listen's \`notifications/resources/updated\`, of that client's \`resources/read\` made on it, and of the watch call's answer (the bench's wall clock, one machine). Both watch one registry group, so one re-run answers both. ${ROUNDS} rounds of ${WRITES_PER_ROUND} writes; p50 ratios round by round, p99 over all ${ROUNDS * WRITES_PER_ROUND}.`,
      `Waiting: ${WAITING} watch calls waiting at once over HTTP from one SDK client (its own connection each, as undici pools them), opened ${RAMP} at a time (a thousand connections opened at once overflow the listening socket's backlog), each on its own customer (\`${show(1)}\`..\`${show(WAITING)}\`) with its version; then the same ${WAITING} URIs as ${WAITING} listens, opened alike. Heap: the server's heap used after a forced GC before and once all wait (the live registry's count), over ${WAITING}. Re-runs of one write: the registry's count across one rename of a watched customer (500, then 501).`,
    ],
    figures: [listen, listenRead, watchAnswer, listenP99, watchP99],
    comparisons,
    notes: [
      "Re-runs and bytes are counts, shown with the report's `x` unit only because every comparison carries a unit.",
      "A waiting watch call is a tools/call request in progress: over 2026-07-28 HTTP it holds the SDK's per-request server instance and its HTTP exchange, where a listen holds an event stream the SDK's handler answers itself; the heap ratio is that difference.",
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(watchToolBench);
