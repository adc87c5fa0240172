import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";

/**
 * What `livecmd serve` loads over stdio before its first call (issue 37): the compiled package
 * (`bin/livecmd.js`, as a host runs it; the build bundles it), the example app on SQLite. A
 * host waits on every module of the start, so the modules of what the first answers do not use
 * load when first used: ajv (and the validators) on the first call; PostgreSQL's driver, its
 * planner and change feed, jose and the HTTP server's modules never on a stdio start on SQLite.
 * The child reports what it loaded through test/e2e/fixtures/loadedModules/recordLoads.mjs; the
 * source modules in each bundled file are read from its source map.
 */
const root = path.resolve(import.meta.dirname, "../..");
const RECORD_LOADS = path.join(root, "test/e2e/fixtures/loadedModules/recordLoads.mjs");

/** The PostgreSQL modules a database loads as it opens, as `loadedOnOpen.ts` names them. */
const POSTGRES_ON_OPEN = path.join(root, "packages/livecmd/runtime/db/postgres/loadedOnOpen.ts");
const onOpen = [...readFileSync(POSTGRES_ON_OPEN, "utf8").matchAll(/from "\.\/([\w/]+)\.ts"/g)].map(
  ([, name]) => name!,
);

/** Files of a package, from node_modules or bundled into livecmd's dist/bundled/, or source modules of livecmd's. */
const NOT_BEFORE_FIRST_CALL: Record<string, RegExp> = {
  ajv: /\/node_modules\/ajv\/|\/dist\/bundled\/ajv\.cjs$/,
  pg: /\/node_modules\/pg\//,
  "PostgreSQL's planner and change feed": new RegExp(
    `/runtime/db/postgres/(${onOpen.join("|")})\\.ts$`,
  ),
  jose: /\/node_modules\/jose\//,
  yargs: /\/node_modules\/yargs\//,
  "the SDK's HTTP adapters": /\/node_modules\/@modelcontextprotocol\/(node|hono)\//,
};

interface Answer {
  id: number;
  result?: { isError?: boolean; content?: { text: string }[] };
  error?: { message: string };
}

class StdioServe {
  readonly #child = spawn(
    process.execPath,
    [
      "--import",
      RECORD_LOADS,
      "packages/livecmd/bin/livecmd.js",
      "serve",
      "--app",
      "example/app.ts",
    ],
    {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:", DATABASE_URL: "" },
    },
  );
  readonly #answers = new Map<number, (answer: Answer) => void>();
  readonly #loaded: ((files: string[]) => void)[] = [];
  #nextId = 1;

  constructor() {
    createInterface({ input: this.#child.stdout! }).on("line", (line) => {
      const answer = JSON.parse(line) as Answer;
      this.#answers.get(answer.id)?.(answer);
    });
    createInterface({ input: this.#child.stderr! }).on("line", (line) => {
      if (line.startsWith("loaded: ")) this.#loaded.shift()?.(JSON.parse(line.slice(8)));
    });
  }

  request(method: string, params: object): Promise<Answer> {
    const id = this.#nextId++;
    const answered = new Promise<Answer>((resolve) => this.#answers.set(id, resolve));
    this.#child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return answered;
  }

  notify(method: string): void {
    this.#child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  /** Every module file the child loaded so far. */
  loaded(): Promise<string[]> {
    const listed = new Promise<string[]>((resolve) => this.#loaded.push(resolve));
    this.#child.kill("SIGUSR2");
    return listed;
  }

  async close(): Promise<void> {
    const exited = once(this.#child, "exit");
    this.#child.stdin!.end();
    await exited;
  }
}

function loadedOf(files: string[]): string[] {
  const modules = [...files, ...files.flatMap(bundledSources)];
  return Object.entries(NOT_BEFORE_FIRST_CALL)
    .filter(([, pattern]) => modules.some((file) => pattern.test(file)))
    .map(([name]) => name);
}

/** The source modules bundled into a file of livecmd's dist/, from its source map. */
function bundledSources(file: string): string[] {
  const map = `${file}.map`;
  if (!file.includes("/packages/livecmd/dist/") || !existsSync(map)) return [];
  const { sources } = JSON.parse(readFileSync(map, "utf8")) as { sources: string[] };
  return sources.map((source) => path.resolve(path.dirname(file), source));
}

describe("a stdio serve of the compiled package on SQLite loads what its answers use, when they use it", () => {
  let serve: StdioServe;
  before(async () => {
    serve = new StdioServe();
    const opened = await serve.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "serve-start-loads", version: "0" },
    });
    assert.ok(opened.result, JSON.stringify(opened));
    serve.notify("notifications/initialized");
  });
  after(() => serve.close());

  it("answers initialize and the listings without ajv, pg, the PostgreSQL planner, jose, yargs or the HTTP adapters", async () => {
    assert.ok((await serve.request("tools/list", {})).result);
    assert.ok((await serve.request("resources/templates/list", {})).result);
    const files = await serve.loaded();
    assert.ok(
      files.some((file) => file.endsWith("/dist/cli/main.js")),
      "the compiled CLI ran",
    );
    assert.deepEqual(loadedOf(files), []);
  });

  it("compiles a command's validator on its first call, which refuses as it always did", async () => {
    const call = (args: object) =>
      serve.request("tools/call", { name: "orders_between", arguments: args });
    for (const [args, text] of [
      [
        { from: "a", to: "2025-02-30" },
        "from: must be a date written YYYY-MM-DD; to: is not a date in the calendar (February 2025 has 28 days)",
      ],
      [
        { from: "2025-02-01", to: "2025-02-03", extra: 1 },
        "extra: is not a parameter of this command",
      ],
    ] as const) {
      const { result } = await call(args);
      assert.equal(result?.isError, true);
      assert.deepEqual(result.content, [
        {
          type: "text",
          text: `Invalid arguments for orders_between: ${text}; change them and call orders_between again`,
        },
      ]);
    }
    assert.equal((await call({ from: "2025-02-01", to: "2025-02-03" })).result?.isError, undefined);
    assert.deepEqual(loadedOf(await serve.loaded()), ["ajv"]);
  });
});
