/**
 * `npm run load`: the example app over Streamable HTTP on 127.0.0.1 under concurrent clients of
 * both eras, bounded in time and count.
 *
 *   npm run load                                   # 32 clients, 8 s, at most 200,000 requests
 *   npm run load -- --clients 64 --seconds 20 --max 500000
 *   npm run load -- --live                         # 500 listens x 64 URIs, 10,000 writes, writes stop at 300 s
 *   npm run load -- --live --listens 200 --writes 2000 --live-seconds 60
 *
 * Each client loops: valid reads of every template (most), hostile reads, tool calls, and writes
 * (customers_create / orders_create). Checked: every valid read answers (no lost request, no
 * transport error), hostile reads are -32602, reads keep being answered while writes go on (the
 * longest gap between two answered reads), nothing is written twice or lost (rows after = rows
 * before + successful creates), and heap returns near its baseline once everyone disconnects.
 *
 * `--live` runs support/liveLoad.ts instead: `--listens` 2026-07-28 listens of 64 URIs each over
 * HTTP on 127.0.0.1 (at most 1000: the SDK refuses more than 1024 open listens per endpoint),
 * then `--writes` renames (at most 100,000) by 64 clients while 4 others read; the writes stop
 * at `--live-seconds` (which fails the run). Checked: no lost update, no spurious update, every
 * read answered, the registry empty and the heap back near its baseline once everyone left.
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { validUri } from "./support/arbitraries.ts";
import { countedExampleApp, PROTOCOLS, type Protocol } from "./support/exampleApp.ts";
import { sqliteHandle } from "../helpers/sqliteHandle.ts";
import { HOSTILE_URIS } from "./support/hostileUris.ts";
import { describeReport, runLiveLoad } from "./support/liveLoad.ts";

const { values: options } = parseArgs({
  options: {
    clients: { type: "string", default: "32" },
    seconds: { type: "string", default: "8" },
    max: { type: "string", default: "200000" },
    live: { type: "boolean", default: false },
    listens: { type: "string", default: "500" },
    writes: { type: "string", default: "10000" },
    "live-seconds": { type: "string", default: "300" },
  },
});
if (options.live) {
  await runLive();
  process.exit();
}

async function runLive(): Promise<void> {
  const listens = Math.min(1000, Math.max(1, Number(options.listens)));
  const writes = Math.min(100_000, Math.max(1, Number(options.writes)));
  const gc = (globalThis as { gc?: () => void }).gc;
  const started = performance.now();
  const report = await runLiveLoad({
    listens,
    urisPerListen: 64,
    writes,
    writers: 64,
    readers: 4,
    targets: 1200,
    shows: 600,
    groups: 20,
    untouched: 20,
    seed: 20260728,
    deadlineMs: Math.min(600, Number(options["live-seconds"])) * 1000,
    ...(gc ? { gc } : {}),
    log: (line) => console.log(line),
  });
  console.log(
    `live load over HTTP on 127.0.0.1, ${((performance.now() - started) / 1000).toFixed(1)} s in all`,
  );
  console.log(describeReport(report));
  try {
    assert.equal(report.timedOut, false, "the writes finished before --live-seconds");
    assert.equal(report.subscriptions, listens * 64, "every URI of every listen honored");
    assert.deepEqual(
      report.modelMismatches.slice(0, 5),
      [],
      "the writes touched exactly the URIs whose reads changed",
    );
    assert.deepEqual(report.lostUpdates.slice(0, 5), [], "no lost update");
    assert.deepEqual(report.spuriousUpdates.slice(0, 5), [], "no spurious update");
    assert.deepEqual(report.failedReads.slice(0, 5), [], "every read answered");
    assert.deepEqual(
      report.statsAfterDisconnect,
      { subscriptions: 0, groups: 0 },
      "the registry empty once everyone left",
    );
    if (report.heapMiB)
      assert.ok(
        report.heapMiB.afterDisconnect - report.heapMiB.baseline <
          Math.max(16, (report.heapMiB.listening - report.heapMiB.baseline) / 4),
        "heap back near its baseline",
      );
    console.log("ok");
  } catch (error) {
    console.error(String(error));
    process.exitCode = 1;
  }
}
const CLIENTS = Number(options.clients);
const DEADLINE = performance.now() + Number(options.seconds) * 1000;
const MAX_REQUESTS = Number(options.max);

const counted = countedExampleApp();
const { app } = counted;
const countRows = () =>
  (
    sqliteHandle(app)
      .prepare("SELECT (SELECT COUNT(*) FROM customers) + (SELECT COUNT(*) FROM orders) AS n")
      .get() as { n: number }
  ).n;
const rowsBefore = countRows();
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = process.memoryUsage().heapUsed;

const serving = await serveHttp(app, {
  port: 0,
  onerror: (error) => serverErrors.push(error.message),
});
const serverErrors: string[] = [];
const valid = fc.sample(validUri, { numRuns: 2000, seed: 1 });
const hostile = HOSTILE_URIS.filter(
  (entry) => entry.outcome.kind === "invalid" && entry.uri.length < 4096,
).map((entry) => entry.uri);

const latencies: number[] = [];
const outcomes: Record<string, number> = {};
const problems: string[] = [];
let requests = 0;
let creates = 0;
let lastReadAt = performance.now();
let longestReadGap = 0;
const note = (what: string) => void (outcomes[what] = (outcomes[what] ?? 0) + 1);

async function runClient(index: number): Promise<void> {
  const protocol: Protocol = PROTOCOLS[index % PROTOCOLS.length]!;
  const client = new Client(
    { name: `load-${index}`, version: "0.0.0" },
    protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(serving.url));
  for (let i = 0; performance.now() < DEADLINE && requests < MAX_REQUESTS; i++) {
    requests++;
    const kind = i % 20;
    const started = performance.now();
    try {
      if (kind === 0) {
        const uri = hostile[(index * 31 + i) % hostile.length]!;
        await client.readResource({ uri }).then(
          () => problems.push(`hostile read answered: ${uri}`),
          (error: unknown) => {
            if (!(error instanceof ProtocolError && error.code === -32602))
              problems.push(`hostile read ${uri}: ${String(error)}`);
          },
        );
        note("hostile read refused");
      } else if (kind === 1) {
        const result = await client.callTool({
          name: "customers_create",
          arguments: {
            name: `Load ${index}-${i}`,
            email: `load-${index}-${i}@example.com`,
            balance: i,
          },
        });
        if (result.isError) problems.push(`customers_create: ${JSON.stringify(result.content)}`);
        else creates++;
        note("write");
      } else if (kind === 2) {
        const result = await client.callTool({
          name: "orders_create",
          arguments: {
            customer_id: 1 + ((index * 7 + i) % 2000),
            total: i,
            placed_on: "2025-06-01",
          },
        });
        if (result.isError) problems.push(`orders_create: ${JSON.stringify(result.content)}`);
        else creates++;
        note("write");
      } else {
        const uri = valid[(index * 131 + i) % valid.length]!;
        await client.readResource({ uri }).then(
          () => note("read"),
          (error: unknown) => {
            // A valid URI may still make the command refuse its values (-32603); never anything else.
            if (error instanceof ProtocolError && error.code === -32603)
              note("read refused by the command");
            else problems.push(`read ${uri}: ${String(error)}`);
          },
        );
        const now = performance.now();
        latencies.push(now - started);
        longestReadGap = Math.max(longestReadGap, now - lastReadAt);
        lastReadAt = now;
      }
    } catch (error) {
      problems.push(`client ${index}: ${String(error)}`);
    }
  }
  await client.close();
}

const started = performance.now();
await Promise.all(Array.from({ length: CLIENTS }, (_, index) => runClient(index)));
const seconds = (performance.now() - started) / 1000;
await serving.close();

const rowsAfter = countRows();
gc?.();
await new Promise((resolve) => setTimeout(resolve, 100));
gc?.();
const heapAfter = process.memoryUsage().heapUsed;

latencies.sort((a, b) => a - b);
const percentile = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
console.log(
  `load: ${CLIENTS} clients (both eras) over HTTP on 127.0.0.1, ${requests} requests in ${seconds.toFixed(1)} s (${Math.round(requests / seconds)}/s)`,
);
console.log(`outcomes: ${JSON.stringify(outcomes)}`);
console.log(
  `valid reads: p50 ${percentile(50).toFixed(1)} ms, p99 ${percentile(99).toFixed(1)} ms, max ${percentile(100).toFixed(1)} ms; longest gap between answered reads ${longestReadGap.toFixed(1)} ms`,
);
console.log(`rows: ${rowsBefore} before, ${rowsAfter} after, ${creates} successful creates`);
console.log(
  `heap: ${(heapBefore / 2 ** 20).toFixed(1)} MiB before, ${(heapAfter / 2 ** 20).toFixed(1)} MiB after everyone left${gc ? "" : " (run with --expose-gc for a meaningful figure)"}`,
);
try {
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problem(s)`);
  assert.equal(rowsAfter, rowsBefore + creates, "every successful write is there, once");
  assert.deepEqual(serverErrors, [], "the server reported no error");
  if (gc) assert.ok(heapAfter < heapBefore + 32 * 2 ** 20, "heap back near its baseline");
  console.log("ok");
} catch (error) {
  console.error(String(error));
  process.exitCode = 1;
}
