import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, cp, mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { root, run, type CliRun } from "./cli.ts";
import { inspectorCommand } from "./peerTools.ts";
import { scratchProject, type ScratchProject } from "./scratchProject.ts";

/**
 * The project the docs' blocks run in: a copy of the example app (`example/`, `generated/`) in a
 * fresh folder outside the repository, with livecmd, livecmd-kit and what the app and the blocks
 * import linked into its node_modules (the compiled packages, as an installed copy is used). Its
 * database is a fresh one in memory for every process (`LIVECMD_EXAMPLE_DB=:memory:`).
 *
 * `npx` there runs the project's own `livecmd` and `tsc`, and the MCP Inspector the test suite
 * installs (test/peers) for `npx [-y] @modelcontextprotocol/inspector[@version]`: the commands
 * run as written, with nothing downloaded. Any other `npx` fails, naming itself.
 */
export interface DocsProject {
  readonly dir: string;
  /** Runs `script` with bash (`set -euo pipefail`), stdin closed. */
  shell(script: string, timeoutMs: number): Promise<CliRun>;
  /** Runs a TypeScript file of the project with tsx. */
  typescript(file: string, timeoutMs: number): Promise<CliRun>;
  /** `tsc --noEmit` over the project: the example app and every block written as `doc-*.ts`. */
  typecheck(): Promise<CliRun>;
  /** `livecmd serve --http 0` of the example app: its port, and how to stop it. */
  serveHttp(): Promise<{ port: number; stop(): Promise<void> }>;
  /** Runs `command` with bash until its output holds every line of `shown` (in order), then stops it. */
  untilShown(command: string, shown: readonly string[], timeoutMs: number): Promise<CliRun>;
  write(file: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

const LINKED = [
  "tsx",
  "better-sqlite3",
  "pg",
  "@modelcontextprotocol/client",
  "typescript",
  "@types/node",
  "@types/better-sqlite3",
  "@types/pg",
];

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    resolveJsonModule: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  },
  include: ["example", "generated", "doc-*.ts"],
};

const NPX = `#!/usr/bin/env bash
# npx of the docs' commands, run from the project without downloading anything (the
# Inspector passes its server only a few variables: the project's path is written in).
if [ "$1" = "-y" ]; then shift; fi
case "$1" in
  livecmd) shift; exec node "PROJECT/node_modules/livecmd/bin/livecmd.js" "$@" ;;
  tsc) shift; exec node "PROJECT/node_modules/typescript/bin/tsc" "$@" ;;
  @modelcontextprotocol/inspector|@modelcontextprotocol/inspector@*)
    shift; exec "$INSPECTOR_NODE" "$INSPECTOR_CLI" "$@" ;;
esac
echo "docs test: npx $1 is not one of the commands the docs test runs" >&2
exit 127
`;

export async function docsProject(): Promise<DocsProject> {
  const project: ScratchProject = await scratchProject(
    {
      "package.json": JSON.stringify({
        name: "docs-example",
        version: "0.1.0",
        private: true,
        type: "module",
        livecmd: { app: "example/app.ts", out: "generated" },
      }),
      "tsconfig.json": JSON.stringify(TSCONFIG, null, 2),
    },
    LINKED,
  );
  const { dir } = project;
  await cp(path.join(root, "example"), path.join(dir, "example"), { recursive: true });
  await cp(path.join(root, "generated"), path.join(dir, "generated"), { recursive: true });
  await mkdir(path.join(dir, ".bin"));
  await writeFile(path.join(dir, ".bin/npx"), NPX.replaceAll("PROJECT", dir));
  await chmod(path.join(dir, ".bin/npx"), 0o755);
  let inspector: [string, string] | undefined;
  const env = (): NodeJS.ProcessEnv => {
    inspector ??= inspectorCommand();
    const variables: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${path.join(dir, ".bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      INSPECTOR_NODE: inspector[0],
      INSPECTOR_CLI: inspector[1],
      LIVECMD_EXAMPLE_DB: ":memory:",
    };
    delete variables.NODE_OPTIONS;
    return variables;
  };
  // Stdin closed: a command that serves over stdio ends with it.
  const shellArgs = (script: string) => ["-c", `set -euo pipefail\nexec </dev/null\n${script}`];
  return {
    dir,
    shell: (script, timeoutMs) =>
      run("bash", shellArgs(script), { cwd: dir, env: env(), timeoutMs }),
    typescript: (file, timeoutMs) =>
      run(process.execPath, ["--import", "tsx", file], { cwd: dir, env: env(), timeoutMs }),
    typecheck: () =>
      run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], {
        cwd: dir,
        env: env(),
        timeoutMs: 300_000,
      }),
    async serveHttp() {
      const child = spawn(
        process.execPath,
        ["node_modules/livecmd/bin/livecmd.js", "serve", "--http", "0"],
        { cwd: dir, env: env(), stdio: ["ignore", "pipe", "inherit"] },
      );
      const exited = once(child, "exit");
      for await (const line of createInterface({ input: child.stdout! })) {
        const served = /at http:\/\/127\.0\.0\.1:(\d+)\/mcp$/.exec(line);
        if (served)
          return {
            port: Number(served[1]),
            async stop() {
              child.kill("SIGTERM");
              await exited;
            },
          };
      }
      throw new Error("livecmd serve --http 0 of the example app exited without its URL");
    },
    async untilShown(command, shown, timeoutMs) {
      const child = spawn("bash", shellArgs(`exec ${command}`), {
        cwd: dir,
        env: env(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      const exited = once(child, "exit");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        const check = () => {
          if (!linesInOrder(stdout + stderr, shown)) return;
          clearTimeout(timer);
          resolve();
        };
        child.stdout!.on("data", (chunk: Buffer) => ((stdout += chunk), check()));
        child.stderr!.on("data", (chunk: Buffer) => ((stderr += chunk), check()));
        void exited.then(() => (clearTimeout(timer), resolve()));
      });
      if (child.exitCode === null) child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      return { code: code ?? 0, stdout, stderr };
    },
    write: project.write,
    remove: project.remove,
  };
}

/** Whether `output` holds each of `lines` as a whole line, in this order. */
export function linesInOrder(output: string, lines: readonly string[]): boolean {
  const printed = output.split("\n").map((line) => line.trimEnd());
  let from = 0;
  for (const line of lines) {
    const found = printed.indexOf(line.trimEnd(), from);
    if (found < 0) return false;
    from = found + 1;
  }
  return true;
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}
