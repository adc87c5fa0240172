import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { createInterface } from "node:readline";

const root = path.resolve(import.meta.dirname, "../..");

/** `livecmd serve --http 0` of the example app from the sources, as a child process. */
export interface ServedCli {
  url: URL;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves once stderr has a line matching `pattern`; that line. */
  stderrLine(pattern: RegExp): Promise<string>;
  close(): Promise<void>;
}

/** The CLI's own entry, run from the TypeScript sources (no build needed). */
export const CLI = [
  "--conditions=livecmd-source",
  "--import",
  "tsx",
  path.join(root, "packages/livecmd/cli/main.ts"),
];

/**
 * `database`: the example app's SQLite file (`LIVECMD_EXAMPLE_DB`), a fresh one in memory unless
 * given; `databaseUrl`: PostgreSQL's instead (`DATABASE_URL`); `port`: 0 (a free one) unless
 * given; `env`: more variables of its environment.
 */
export async function servedCli(
  flags: readonly string[],
  {
    database = ":memory:",
    databaseUrl,
    port = "0",
    env: more = {},
  }: { database?: string; databaseUrl?: string; port?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ServedCli> {
  const env: NodeJS.ProcessEnv = databaseUrl
    ? { ...process.env, ...more, DATABASE_URL: databaseUrl }
    : { ...process.env, ...more, LIVECMD_EXAMPLE_DB: database };
  if (databaseUrl) delete env.LIVECMD_EXAMPLE_DB;
  const child = spawn(
    process.execPath,
    [...CLI, "serve", "--app", "example/app.ts", "--http", port, ...flags],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env },
  );
  let stderr = "";
  const waiting = new Set<() => void>();
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    stderr += chunk;
    for (const check of waiting) check();
  });
  const exited = once(child, "exit");
  const url = await printedUrl(child, () => stderr);
  return {
    url,
    child,
    stderr: () => stderr,
    stderrLine(pattern) {
      return new Promise((resolve) => {
        const check = () => {
          const line = stderr.split("\n").find((each) => pattern.test(each));
          if (line === undefined) return;
          waiting.delete(check);
          resolve(line);
        };
        waiting.add(check);
        check();
      });
    },
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

async function printedUrl(child: ChildProcess, stderr: () => string): Promise<URL> {
  for await (const line of createInterface({ input: child.stdout! })) {
    const served = /^livecmd: serving app "app" at (\S+)$/.exec(line);
    if (served) return new URL(served[1]!);
  }
  throw new Error(`livecmd serve exited without printing its URL: ${stderr()}`);
}
