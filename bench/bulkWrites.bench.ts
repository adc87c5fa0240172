/**
 * Issue 31: a bulk write stalls nobody. Another process inserts 10,000 and 100,000 customers in
 * one transaction into the SQLite file a server reads, while a client reads over Streamable HTTP
 * and a watcher waits for the rows it watches: the longest a read waited, and how much the heap
 * grew, against the same insert made through the app's own database (`ctx.db` is `app.db`), in
 * the same rounds.
 *
 *   npx tsx bench/bulkWrites.bench.ts        # prints this row alone, writes nothing
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExampleApp } from "../example/app.ts";
import type { App } from "../packages/livecmd/runtime/model/app.ts";
import { CHANGE_LOG_BOUNDS } from "../packages/livecmd/runtime/db/sqlite/changes/changeLog.ts";
import { LiveRegistry } from "../packages/livecmd/runtime/live/liveRegistry.ts";
import { serveHttp } from "../packages/livecmd/runtime/server/index.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  median,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

const SIZES = [10_000, 100_000] as const;
const ROUNDS = 3;
const WRITERS = ["another process", "ctx.db"] as const;
type Writer = (typeof WRITERS)[number];

/** Customers `from` to `to` in one statement, by the writer's own connection. */
const BULK_INSERT = `WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?)
  INSERT INTO customers (id, name, email, balance, created_at)
  SELECT i, 'Bulk ' || i, 'bulk' || i || '@example.com', 0, '2025-01-01T00:00:00Z' FROM k`;

/** The same insert by a plain better-sqlite3 script in a process of its own (no livecmd), as a batch job makes it. */
const WRITER_SCRIPT = `
const db = new (require("better-sqlite3"))(process.argv[1], { timeout: 10000 });
const insert = db.prepare(${JSON.stringify(BULK_INSERT)});
process.stdout.write("inserting\\n", () => {
  insert.run(Number(process.argv[2]), Number(process.argv[3]));
  db.close();
});`;

const gc = (() => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

interface Measured {
  /** The longest a read waited, from the insert's start until its last row was notified. */
  stall: number;
  /** Heap used at its highest meanwhile, over the heap after a GC before the insert (MiB). */
  heapGrowth: number;
}

export const bulkWritesBench: BenchModule = {
  async run(context) {
    const folder = mkdtempSync(path.join(tmpdir(), "livecmd-bulk-bench-"));
    const file = path.join(folder, "customers.sqlite");
    const app = createExampleApp(file, { sqlite: true });
    const serving = await serveHttp(app, { port: 0 });
    const registry = new LiveRegistry(app, { onError: () => {} });
    const client = new Client(
      { name: "bulk", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(serving.url));
    try {
      const measured = new Map<string, Measured[]>();
      let next = 1_000_000;
      for (let round = 0; round < ROUNDS; round++)
        for (const size of SIZES)
          for (const writer of WRITERS) {
            context.log(`bulk: round ${round + 1}, ${size} rows by ${writer}`);
            const rows = { from: next, to: next + size - 1 };
            next += size;
            const key = `${size} ${writer}`;
            measured.set(key, [
              ...(measured.get(key) ?? []),
              await insertWhileReading(app, file, registry, client, writer, rows),
            ]);
          }
      return section(measured);
    } finally {
      await client.close();
      registry.close();
      await serving.close();
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

/** One bulk insert by `writer`, with sequential reads of customer 1 and a watcher of its first and last rows. */
async function insertWhileReading(
  app: App,
  file: string,
  registry: LiveRegistry,
  client: Client,
  writer: Writer,
  { from, to }: { from: number; to: number },
): Promise<Measured> {
  const watched = [from, to];
  const told = new Set<number>();
  let allTold!: () => void;
  const notified = new Promise<void>((resolve) => (allTold = resolve));
  const ends = await Promise.all(
    watched.map((id) =>
      registry.add("customers_show", [id], {
        uri: `app://customers_show/${id}`,
        notify: () => told.add(id).size === watched.length && allTold(),
      }),
    ),
  );
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapHighest = heapBefore;
  let writing = true;
  /** When the insert began: a read counts only what it waited from then on. */
  let began = Infinity;
  let stall = 0;
  const reading = (async () => {
    while (writing) {
      const started = performance.now();
      await client.readResource({ uri: "app://customers_show/1" }, { cacheMode: "bypass" });
      const ended = performance.now();
      if (ended > began) stall = Math.max(stall, ended - Math.max(started, began));
      heapHighest = Math.max(heapHighest, process.memoryUsage().heapUsed);
    }
  })();
  if (writer === "ctx.db") {
    began = performance.now();
    await app.db.transaction(() => app.db.run(BULK_INSERT, from, to));
  } else await otherProcessInserts(file, from, to, () => (began = performance.now()));
  await notified;
  heapHighest = Math.max(heapHighest, process.memoryUsage().heapUsed);
  writing = false;
  await reading;
  for (const end of ends) end();
  await registry.settled();
  return { stall, heapGrowth: (heapHighest - heapBefore) / 2 ** 20 };
}

/** Runs the writer script, calling `inserting` when it says it begins (its Node.js start-up does not count). */
async function otherProcessInserts(
  file: string,
  from: number,
  to: number,
  inserting: () => void,
): Promise<void> {
  const child = spawn(process.execPath, ["--eval", WRITER_SCRIPT, file, `${from}`, `${to}`], {
    cwd: path.resolve(import.meta.dirname, ".."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  child.stdout.once("data", inserting);
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`bench: the writer process exited with ${code}`);
}

function section(measured: Map<string, Measured[]>): Section {
  const stall = (size: number, writer: Writer): Figure => {
    const stalls = measured.get(`${size} ${writer}`)!.map((each) => each.stall);
    return figureOf(`${size} rows by ${writer}: longest read wait`, "ms", stalls, stalls);
  };
  const heap = (size: number, writer: Writer) =>
    median(measured.get(`${size} ${writer}`)!.map((each) => each.heapGrowth));
  const figures = SIZES.flatMap((size) => WRITERS.map((writer) => stall(size, writer)));
  const comparisons: Comparison[] = SIZES.flatMap((size) => [
    ratio(
      `${size} rows: longest read wait, another process / ctx.db`,
      stall(size, "another process"),
      stall(size, "ctx.db"),
    ),
    {
      label: `${size} rows by another process: longest read wait`,
      value: stall(size, "another process").median,
      unit: "ms" as const,
      target: { op: "<=" as const, value: 250 },
    },
    {
      label: `${size} rows by another process: heap growth`,
      value: heap(size, "another process"),
      unit: "MiB" as const,
    },
    {
      label: `${size} rows by ctx.db: heap growth`,
      value: heap(size, "ctx.db"),
      unit: "MiB" as const,
    },
  ]);
  return {
    title: "Another process's bulk insert: the longest read wait and heap growth (issue 31)",
    method: [
      `The example app on a SQLite file (2,000 customers), served over Streamable HTTP on 127.0.0.1 (2026-07-28); in the same process a \`LiveRegistry\` watches \`customers_show\` of the first and the last row each insert adds.`,
      `Each insert adds ${SIZES.join(" or ")} customers in one statement and one transaction: by a plain better-sqlite3 script in a process of its own (the server sees it through the change log), or through the app's database in the server's process (\`app.db.transaction\`, what \`ctx.db\` is: the peer). ${ROUNDS} rounds, each size and writer once per round, new ids every time.`,
      "Meanwhile one client reads `customers_show/1` again and again, one read at a time, until both watched rows were notified; the longest read wait is the longest any read waited after the insert began (for the other process: once its Node.js had started and said so; a read under way then counts from then). The peer's includes its own insert, which runs on the event loop. Heap growth: the highest heap used meanwhile (sampled after each read and at the end) over the heap after a forced GC before the insert; median of the rounds.",
      `The change log is read ${CHANGE_LOG_BOUNDS.pageEntries} entries per turn of the event loop; a change of more than ${CHANGE_LOG_BOUNDS.heldRowImages} row images is "any row" of its tables (docs/mcp.md, "What counts as a change").`,
    ],
    figures,
    comparisons,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(bulkWritesBench);
