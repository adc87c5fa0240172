import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/** The CLI as users run it, minus npx's own start-up: node, then packages/livecmd/bin/livecmd.js (which registers tsx). */
export const LIVECMD = [path.join(REPO_ROOT, "packages/livecmd/bin/livecmd.js")];

export interface Finished {
  /** From spawn to exit, as a shell's `time` would report it. */
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node ...args` in the repository as a fresh process, and times it from spawn to exit. */
export function timeNode(args: readonly string[]): Promise<Finished> {
  const started = performance.now();
  const child = spawnNode(args);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  let ms = 0;
  child.on("exit", () => (ms = performance.now() - started));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ ms, code, stdout, stderr }));
  });
}

export function spawnNode(args: readonly string[]): ChildProcess {
  return spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
}

/** Fails loudly: a benchmark of a command that did not do its job measures nothing. */
export function expectSuccess(what: string, finished: Finished, stdoutPattern: RegExp): Finished {
  if (finished.code !== 0 || !stdoutPattern.test(finished.stdout)) {
    throw new Error(
      `${what} exited ${finished.code} without ${stdoutPattern}:\n${finished.stdout}\n${finished.stderr}`,
    );
  }
  return finished;
}

export interface Line {
  text: string;
  /** `performance.now()` when the line arrived. */
  at: number;
}

/** The lines a long-running process prints, stamped on arrival, consumed in order. */
export class LineStream {
  private readonly lines: Line[] = [];
  private partial = "";
  private wake: (() => void) | undefined;

  constructor(stream: NodeJS.ReadableStream) {
    stream.on("data", (chunk: Buffer) => {
      const at = performance.now();
      const parts = (this.partial + chunk.toString()).split("\n");
      this.partial = parts.pop()!;
      for (const text of parts) this.lines.push({ text, at });
      this.wake?.();
    });
  }

  /** The next line matching `pattern`, skipping the others; rejects after `timeoutMs`. */
  async next(pattern: RegExp, timeoutMs: number): Promise<Line> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const line = this.lines.shift();
      if (line && pattern.test(line.text)) return line;
      if (line) continue;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no line matching ${pattern} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Waits until nothing has been printed for `quietMs`, and forgets what was. */
  async settle(quietMs: number): Promise<void> {
    do {
      this.lines.length = 0;
      await new Promise((resolve) => setTimeout(resolve, quietMs));
    } while (this.lines.length > 0);
  }
}
