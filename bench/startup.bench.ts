/**
 * Issue 20's start-up row: how long `livecmd serve --app <compiled app>` over stdio takes from
 * spawn to its first answers, against a hand-written SDK v2 stdio server with one resource
 * template (`peers/sdkStdioServer.ts`). Both are compiled by tsc into `.tmp/startup/` and run on
 * this machine's Node with no loader, each on a fresh in-memory SQLite database seeded with the
 * example's rows; each sample is a fresh process, and the two alternate within a round.
 *
 *   npm run bench -- startup        # prints this row alone, writes nothing
 */
import { spawn } from "node:child_process";
import { deepStrictEqual } from "node:assert/strict";
import { rm } from "node:fs/promises";
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

interface Contender {
  key: "livecmd" | "sdk";
  label: string;
  args: string[];
}

interface Sample {
  initialize: number;
  read: number;
  text: string;
}

const CONTENDERS: Contender[] = [
  {
    key: "livecmd",
    label: "`livecmd serve --app example/app.js` (stdio)",
    args: [...LIVECMD, "serve", "--app", path.join(OUT_DIR, "example/app.js")],
  },
  {
    key: "sdk",
    label: "SDK `McpServer` + `ResourceTemplate`, `serveStdio`",
    args: [path.join(OUT_DIR, "bench/peers/sdkStdioServer.js")],
  },
];

export const startupBench: BenchModule = {
  async run(context) {
    context.log(`startup: compiling the example app and the SDK peer into ${OUT_DIR}`);
    await compile();
    // One unmeasured start each: the disk cache holds both programs' files, as on a warm machine.
    for (const contender of CONTENDERS) await sample(contender);
    context.log(`startup: ${ROUNDS} rounds x ${CONTENDERS.length} fresh processes`);
    const samples = new Map<Contender["key"], Sample[]>(CONTENDERS.map(({ key }) => [key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
      for (const contender of order) samples.get(contender.key)!.push(await sample(contender));
    }
    const [livecmd, sdk] = CONTENDERS.map(({ key }) => samples.get(key)!);
    deepStrictEqual(
      JSON.parse(livecmd![0]!.text),
      JSON.parse(sdk![0]!.text),
      "livecmd and the SDK peer read different customers",
    );
    return section(livecmd!, sdk!);
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
  const started = performance.now();
  const child = spawn(process.execPath, contender.args, {
    cwd: REPO_ROOT,
    env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:", DATABASE_URL: "" },
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
    if (!initialized.text.includes('"result"'))
      throw new Error(`initialize failed: ${initialized.text}`);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: URI } });
    const read = await lines.next(/"id":2[,}]/, TIMEOUT_MS);
    const answer = JSON.parse(read.text) as { result?: { contents: { text: string }[] } };
    if (!answer.result) throw new Error(`resources/read ${URI} failed: ${read.text}`);
    return {
      initialize: initialized.at - started,
      read: read.at - started,
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
  }
}

function section(livecmd: Sample[], sdk: Sample[]): Section {
  const figures: Figure[] = [];
  const comparisons: Comparison[] = [];
  for (const [step, what] of [
    ["initialize", "spawn to the `initialize` answer"],
    ["read", `spawn to the first \`resources/read\` answer (${URI})`],
  ] as const) {
    const ours = livecmd.map((sample) => sample[step]);
    const theirs = sdk.map((sample) => sample[step]);
    const livecmdFigure = figureOf(`${CONTENDERS[0]!.label}: ${what}`, "ms", ours, ours);
    const sdkFigure = figureOf(`${CONTENDERS[1]!.label}: ${what}`, "ms", theirs, theirs);
    figures.push(livecmdFigure, sdkFigure);
    comparisons.push(
      // Issue 37: a host that starts servers per session pays this at every start.
      ratio(`livecmd / SDK peer, ${what} (median of per-round ratios)`, livecmdFigure, sdkFigure, {
        op: "<=",
        value: 1.2,
      }),
      { label: `livecmd p90, ${what}`, value: percentile(ours, 0.9), unit: "ms" },
      { label: `SDK peer p90, ${what}`, value: percentile(theirs, 0.9), unit: "ms" },
    );
  }
  return {
    title: "start-up: spawn to the first answers of `livecmd serve` over stdio (issue 20)",
    method: [
      `The example app (example/app.ts) and a hand-written SDK v2 stdio server with one resource template (bench/peers/sdkStdioServer.ts, the same statements on the same schema and seed) are compiled by tsc into ${OUT_DIR}/ and run on this machine's Node (${process.version}) with no loader.`,
      "livecmd runs as users run it: `node packages/livecmd/bin/livecmd.js serve --app .tmp/startup/example/app.js`, stdio; the peer as `node .tmp/startup/bench/peers/sdkStdioServer.js`.",
      "Both open a fresh in-memory SQLite database (better-sqlite3) seeded with the example's rows before they answer (`LIVECMD_EXAMPLE_DB=:memory:`).",
      `Each sample is a fresh process: \`initialize\` (${PROTOCOL}) is written at spawn, \`notifications/initialized\` and \`resources/read ${URI}\` once it answers; both times are from spawn to the answer's line on stdout.`,
      `${ROUNDS} rounds, the two contenders alternating first, after one unmeasured start of each; ratios are the median of per-round ratios.`,
    ],
    figures,
    comparisons,
    notes: [
      "What livecmd loads that the peer does not, before its first answer: the CLI's serve path (no yargs: `cli/serveArguments.ts`), the runtime and the stdio server (not livecmd/server's HTTP modules, nor pg or jose: `test/e2e/serve-start-loads.test.ts`), pino; and, for the read, ajv, which checks its arguments against the command's `inputSchema` (the request params' checks are compiled ahead of time); the peer checks nothing but what zod parses.",
      "livecmd runs as its package ships: the build bundles each entry's modules into a few files (`packages/livecmd/bundle.js`), and ajv and pino into one file each; Node's compile cache is not used (this Node has none before 22.1), so every start compiles its code afresh, as the peer's does.",
    ],
  };
}
