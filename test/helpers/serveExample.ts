import { spawn, type ChildProcess } from "node:child_process";
import { root } from "./cli.ts";

/** Every server this test process started: none outlives it, whatever a test left behind. */
const started = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of started) child.kill("SIGKILL");
});

/** `livecmd serve --http 0` on the example app (with `extraEnv` besides), as a child process; resolves with its URL. */
export function serveExample(
  databaseUrl: string,
  extraEnv: NodeJS.ProcessEnv = {},
): { child: ChildProcess; url: Promise<URL> } {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, DATABASE_URL: databaseUrl };
  delete env.LIVECMD_EXAMPLE_DB;
  const child = spawn(
    process.execPath,
    ["packages/livecmd/bin/livecmd.js", "serve", "--http", "0"],
    {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  started.add(child);
  child.once("exit", () => started.delete(child));
  const url = new Promise<URL>((resolve, reject) => {
    let printed = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(printed);
      if (found) resolve(new URL(found[0]));
    });
    child.once("exit", (code) => reject(new Error(`livecmd serve exited (${code}): ${printed}`)));
  });
  return { child, url };
}
