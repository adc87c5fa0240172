import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/cli.ts";
import { INITIALIZE } from "../helpers/rawStreams.ts";

/**
 * An app may hold handles of its own open (a pg.Pool's idle clients, for 10 s by default): the CLI
 * ends when its work does, not when they let go. Here the handle is a timer of a day, set before
 * the app loads; a CLI that waits for it is killed after `WAIT_MS`, and fails.
 */
const WAIT_MS = 30_000;
const HOLD_OPEN = `data:text/javascript,setInterval(() => {}, 86400000)`;

function livecmdHeldOpen(args: string[], stdin: string) {
  const child = spawn(
    process.execPath,
    ["--import", HOLD_OPEN, path.join(root, "packages/livecmd/bin/livecmd.js"), ...args],
    {
      cwd: root,
      env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:", DATABASE_URL: undefined },
      signal: AbortSignal.timeout(WAIT_MS),
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  child.on("error", () => {}); // the abort, told by the exit's signal
  child.stdin.end(stdin);
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once("exit", (code, signal) =>
      resolve({ code, stderr: signal ? `still running after ${WAIT_MS} ms\n${stderr}` : stderr }),
    ),
  );
}

const cases: [rule: string, args: string[], stdin: string][] = [
  ["serve over stdio ends with its stdin", ["serve"], `${INITIALIZE}\n`],
  [
    "inspect --reads ends once it has printed",
    ["inspect", "--reads", "app://customers_show/1"],
    "",
  ],
];

for (const [rule, args, stdin] of cases)
  test(
    `the CLI ends when its work does, whatever the app holds open: ${rule}`,
    { timeout: 60_000 },
    async () => {
      const { code, stderr } = await livecmdHeldOpen(args, stdin);
      assert.equal(code, 0, stderr);
    },
  );
