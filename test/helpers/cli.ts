import { execFile } from "node:child_process";
import { mkdir, mkdtemp } from "node:fs/promises";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `livecmd ...args` as a user would (a real child process), from the repository root. */
export function livecmd(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return run(process.execPath, [path.join(root, "packages/livecmd/bin/livecmd.js"), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
}

/** Runs a program to its end and collects what it printed; never rejects (the code tells). `env`: its whole environment (this process's when absent). */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 0,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

/**
 * A fresh folder under the repository's `.tmp/` (inside the package, so fixture apps still
 * resolve `livecmd`); `.tmp/` itself does not exist on a fresh clone.
 */
export async function scratchDir(prefix: string): Promise<string> {
  await mkdir(path.join(root, ".tmp"), { recursive: true });
  return mkdtemp(path.join(root, ".tmp", prefix));
}
