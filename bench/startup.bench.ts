/**
 * Issue 20's start-up row: how long `livecmd serve --app <compiled app>` over stdio takes from
 * spawn to its first answers, against a hand-written SDK v2 stdio server with one resource
 * template (`peers/sdkStdioServer.ts`). Both are compiled by tsc into `.tmp/startup/` and run on
 * the Node running the bench, with no loader, each on a fresh in-memory SQLite database seeded
 * with the example's rows; each sample is a fresh process, and the contenders alternate within a
 * round. On a Node with a compile cache (22.1 and later), where `bin/livecmd.js` turns it on,
 * livecmd runs with an empty cache and with one its last start filled, and the peer as written
 * (no cache: the bare server users write) and with a filled one too (`NODE_COMPILE_CACHE`).
 *
 *   npm run bench -- startup        # prints this row alone, writes nothing (on Node 22, as all rows)
 */
import { spawn } from "node:child_process";
import { deepStrictEqual } from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import module from "node:module";
import path from "node:path";
import { LIVECMD, LineStream, REPO_ROOT } from "./lib/processes.ts";
import {
  figureOf,
  percentile,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

/** Fresh processes per contender; the machine is shared, so a modest count, paired by round. */
const ROUNDS = 15;
const TIMEOUT_MS = 30_000;
const OUT_DIR = ".tmp/startup";
/** The 2025 era, where a session opens with `initialize`, as every stdio host does today. */
const PROTOCOL = "2025-11-25";
const URI = "app://customers_show/1";
/** Whether this Node has a compile cache for `bin/livecmd.js` to turn on (22.1 and later). */
const COMPILE_CACHE = "enableCompileCache" in module;

/**
 * Where a contender's compile cache is: none, a fresh empty folder for each start (a first
 * start), or one folder its unmeasured start filled (every start after that).
 */
type Cache = "none" | "cold" | "warm";

interface Contender {
  key: string;
  label: string;
  args: string[];
  cache: Cache;
  /**
   * How the cache folder reaches the process: livecmd's own `enableCompileCache()` puts it in the
   * temporary folder (`TMPDIR`), as a user's start does; the peer has no call, only the variable.
   */
  cacheBy: "TMPDIR" | "NODE_COMPILE_CACHE";
}

interface Sample {
  initialize: number;
  read: number;
  /** The main thread's CPU time at each answer (Linux's /proc/<pid>/schedstat), when known. */
  initializeCpu: number | undefined;
  readCpu: number | undefined;
  text: string;
}

const LIVECMD_LABEL = "`livecmd serve --app example/app.js` (stdio)";
const SDK_LABEL = "SDK `McpServer` + `ResourceTemplate`, `serveStdio`";
const livecmd = (cache: Cache): Contender => ({
  key: `livecmd-${cache}`,
  label: cache === "none" ? LIVECMD_LABEL : `${LIVECMD_LABEL}, ${cache} compile cache`,
  args: [...LIVECMD, "serve", "--app", path.join(OUT_DIR, "example/app.js")],
  cache,
  cacheBy: "TMPDIR",
});
const sdk = (cache: Cache): Contender => ({
  key: `sdk-${cache}`,
  label: cache === "none" ? SDK_LABEL : `${SDK_LABEL}, ${cache} compile cache`,
  args: [path.join(OUT_DIR, "bench/peers/sdkStdioServer.js")],
  cache,
  cacheBy: "NODE_COMPILE_CACHE",
});

/** livecmd first; on Node 20 both start without a cache, as they must. */
const CONTENDERS: Contender[] = COMPILE_CACHE
  ? [livecmd("cold"), livecmd("warm"), sdk("none"), sdk("warm")]
  : [livecmd("none"), sdk("none")];

export const startupBench: BenchModule = {
  async run(context) {
    context.log(`startup: compiling the example app and the SDK peer into ${OUT_DIR}`);
    await compile();
    // One unmeasured start each: the disk cache holds both programs' files, as on a warm
    // machine, and a warm compile cache is filled.
    for (const contender of CONTENDERS) await sample(contender);
    context.log(`startup: ${ROUNDS} rounds x ${CONTENDERS.length} fresh processes`);
    const samples = new Map<string, Sample[]>(CONTENDERS.map(({ key }) => [key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
      for (const contender of order) samples.get(contender.key)!.push(await sample(contender));
    }
    const [first, ...others] = CONTENDERS.map(({ key }) => samples.get(key)![0]!.text);
    for (const text of others)
      deepStrictEqual(
        JSON.parse(text),
        JSON.parse(first!),
        "the contenders read different customers",
      );
    return section(samples);
  },
};

/** tsc, without type checking (the typecheck does that), `.ts` imports rewritten to `.js`. */
async function compile(): Promise<void> {
  await rm(path.join(REPO_ROOT, OUT_DIR), { recursive: true, force: true });
  const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
  const args = [
    tsc,
    "example/app.ts",
    "bench/peers/sdkStdioServer.ts",
    ...["--outDir", OUT_DIR, "--rootDir", "."],
    ...["--module", "nodenext", "--target", "es2023"],
    ...["--rewriteRelativeImportExtensions", "--resolveJsonModule", "--skipLibCheck", "--noCheck"],
  ];
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: "inherit" });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", resolve);
  });
  if (code !== 0) throw new Error(`tsc exited ${code} compiling ${args.slice(1, 3).join(", ")}`);
}

/**
 * One fresh process: `initialize` written at spawn (the pipe holds it until the server reads),
 * then `notifications/initialized` and `resources/read` once it answers; both times from spawn.
 */
async function sample(contender: Contender): Promise<Sample> {
  const cache = await cacheFolder(contender);
  const started = performance.now();
  const child = spawn(process.execPath, contender.args, {
    cwd: REPO_ROOT,
    env: { ...environment(contender, cache), LIVECMD_EXAMPLE_DB: ":memory:", DATABASE_URL: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = new LineStream(child.stdout!);
  const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  try {
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: "startup-bench", version: "0.0.0" },
      },
    });
    const initialized = await lines.next(/"id":1[,}]/, TIMEOUT_MS);
    const initializeCpu = cpuMs(child.pid);
    if (!initialized.text.includes('"result"'))
      throw new Error(`initialize failed: ${initialized.text}`);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: URI } });
    const read = await lines.next(/"id":2[,}]/, TIMEOUT_MS);
    const readCpu = cpuMs(child.pid);
    const answer = JSON.parse(read.text) as { result?: { contents: { text: string }[] } };
    if (!answer.result) throw new Error(`resources/read ${URI} failed: ${read.text}`);
    return {
      initialize: initialized.at - started,
      read: read.at - started,
      initializeCpu,
      readCpu,
      text: answer.result.contents[0]!.text,
    };
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${contender.label}: ${(error as Error).message}\n${stderr}`);
  } finally {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    if (contender.cache === "cold") await rm(cache!, { recursive: true, force: true });
  }
}

/** The contender's compile cache folder, made empty for a cold start; undefined for none. */
async function cacheFolder({ key, cache }: Contender): Promise<string | undefined> {
  if (cache === "none") return undefined;
  const folder = path.join(REPO_ROOT, OUT_DIR, `compile-cache-${key}`);
  if (cache === "cold") await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  return folder;
}

/** The bench's environment, with no compile cache but the contender's. */
function environment({ cacheBy }: Contender, cache: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_COMPILE_CACHE;
  if (cache === undefined) return { ...env, NODE_DISABLE_COMPILE_CACHE: "1" };
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return { ...env, [cacheBy]: cache };
}

/** The main thread's time on a CPU so far, in ms (Linux); undefined elsewhere. */
function cpuMs(pid: number | undefined): number | undefined {
  const file = `/proc/${pid}/schedstat`;
  if (pid === undefined || !existsSync(file)) return undefined;
  return Number(readFileSync(file, "utf8").split(" ")[0]) / 1e6;
}

const STEPS = [
  ["initialize", "initializeCpu", "spawn to the `initialize` answer"],
  ["read", "readCpu", `spawn to the first \`resources/read\` answer (${URI})`],
] as const;

/**
 * Each pair compared: livecmd as a host starts it again (with the cache its last start filled,
 * where Node has one) against the bare peer, held to issue 37's target; on a Node with a cache,
 * livecmd's first start against the bare peer, and both with a filled cache.
 */
const PAIRS: [Contender["key"], Contender["key"], boolean][] = COMPILE_CACHE
  ? [
      ["livecmd-warm", "sdk-none", true],
      ["livecmd-cold", "sdk-none", false],
      ["livecmd-warm", "sdk-warm", false],
    ]
  : [["livecmd-none", "sdk-none", true]];

function section(samples: Map<string, Sample[]>): Section {
  const figures: Figure[] = [];
  const comparisons: Comparison[] = [];
  const label = (key: string) => CONTENDERS.find((contender) => contender.key === key)!.label;
  const figure = (key: string, step: keyof Sample, what: string, unit: string) => {
    const values = samples.get(key)!.map((sample) => sample[step] as number | undefined);
    if (values.some((value) => value === undefined)) return undefined;
    return figureOf(`${label(key)}: ${what}${unit}`, "ms", values as number[], values as number[]);
  };
  for (const [wall, cpu, what] of STEPS) {
    const walls = new Map(CONTENDERS.map(({ key }) => [key, figure(key, wall, what, "")!]));
    const cpus = new Map(
      CONTENDERS.map(({ key }) => [key, figure(key, cpu, what, ", main thread CPU")]),
    );
    figures.push(...walls.values(), ...[...cpus.values()].filter((each) => each !== undefined));
    for (const [ours, theirs, targeted] of PAIRS) {
      const pair = `${label(ours)} / ${label(theirs)}`;
      comparisons.push(
        // Issue 37: a host that starts servers per session pays this at every start.
        ratio(
          `${pair}, ${what} (median of per-round ratios)`,
          walls.get(ours)!,
          walls.get(theirs)!,
          targeted ? { op: "<=", value: 1.2 } : undefined,
        ),
      );
      const [ourCpu, theirCpu] = [cpus.get(ours), cpus.get(theirs)];
      if (ourCpu && theirCpu)
        comparisons.push(
          ratio(
            `${pair}, main thread CPU to that answer (median of per-round ratios)`,
            ourCpu,
            theirCpu,
          ),
        );
      if (targeted)
        comparisons.push(
          {
            label: `${label(ours)} p90, ${what}`,
            value: percentile(walls.get(ours)!.rounds!, 0.9),
            unit: "ms",
          },
          {
            label: `${label(theirs)} p90, ${what}`,
            value: percentile(walls.get(theirs)!.rounds!, 0.9),
            unit: "ms",
          },
        );
    }
  }
  return {
    title: "start-up: spawn to the first answers of `livecmd serve` over stdio (issue 20)",
    method: [
      `The example app (example/app.ts) and a hand-written SDK v2 stdio server with one resource template (bench/peers/sdkStdioServer.ts, the same statements on the same schema and seed) are compiled by tsc into ${OUT_DIR}/ and run on the Node running the bench (${process.version}) with no loader.`,
      "livecmd runs as users run it: `node packages/livecmd/bin/livecmd.js serve --app .tmp/startup/example/app.js`, stdio; the peer as `node .tmp/startup/bench/peers/sdkStdioServer.js`.",
      "Both open a fresh in-memory SQLite database (better-sqlite3) seeded with the example's rows before they answer (`LIVECMD_EXAMPLE_DB=:memory:`).",
      `Each sample is a fresh process: \`initialize\` (${PROTOCOL}) is written at spawn, \`notifications/initialized\` and \`resources/read ${URI}\` once it answers; both times are from spawn to the answer's line on stdout, and the main thread's CPU time (/proc/<pid>/schedstat) is read as each answer arrives.`,
      COMPILE_CACHE
        ? `Node's compile cache: \`bin/livecmd.js\` turns it on (\`module.enableCompileCache()\`, in the temporary folder: \`TMPDIR\` is a folder of the bench's), cold = an empty folder at each start, warm = the folder its unmeasured start filled; the peer, which has no such call, runs as written (no cache: \`NODE_DISABLE_COMPILE_CACHE=1\`) and with a warm \`NODE_COMPILE_CACHE\`. The target holds livecmd warm (every start but a machine's first) against the peer as written.`
        : "Node's compile cache: this Node has none (it came in 22.1), so every start of either compiles its code afresh.",
      `${ROUNDS} rounds, the contenders alternating in order, after one unmeasured start of each; ratios are the median of per-round ratios.`,
    ],
    figures,
    comparisons,
    notes: [
      "What livecmd loads that the peer does not, before its first answer: the CLI's serve path (no yargs: `cli/serveArguments.ts`), the runtime and the stdio server (not livecmd/server's HTTP modules, pg, PostgreSQL's planner and change feed, or jose: `test/e2e/serve-start-loads.test.ts`), pino; and, for the read, ajv, which checks its arguments against the command's `inputSchema` (the request params' checks are compiled ahead of time); the peer checks nothing but what zod parses.",
      "livecmd runs as its package ships: the build bundles each entry's modules into a few files (`packages/livecmd/bundle.js`), and ajv and pino into one file each.",
    ],
  };
}
