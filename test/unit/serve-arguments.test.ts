import assert from "node:assert/strict";
import { describe, it } from "node:test";
import yargs from "yargs";
import { directServeArguments } from "../../packages/livecmd/cli/serveArguments.ts";
import {
  SERVE_OPTIONS,
  serveCommand,
  type ServeArguments,
} from "../../packages/livecmd/cli/serveCommand.ts";

/** What yargs hands `livecmd serve`'s handler for `args`, or the message it fails with. */
async function throughYargs(args: readonly string[]): Promise<ServeArguments | string> {
  let handed: ServeArguments | undefined;
  let failure: string | undefined;
  await yargs([...args])
    .command({ ...serveCommand, handler: (argv) => void (handed = argv) })
    .strict()
    .help()
    .version("0.0.0")
    .exitProcess(false)
    .fail((message, error) => void (failure = message ?? error.message))
    .parseAsync()
    .catch((error: Error) => void (failure = error.message));
  return handed ?? failure ?? "yargs handed nothing";
}

function flagsOf(argv: ServeArguments): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(SERVE_OPTIONS).map((flag) => [flag, argv[flag as keyof ServeArguments]]),
  );
}

/** Serve's common forms: parsed directly, as yargs would. */
const DIRECT: readonly (readonly string[])[] = [
  ["serve"],
  ["serve", "--app", "dist/app.js"],
  ["serve", "--app=dist/app.js", "--page-size", "10", "--log-format", "json"],
  ["serve", "--allow-stale", "--confirm-timeout", "2.5"],
  ["serve", "--page-size", "abc"],
  ["serve", "--app", "dist/app.js", "--http", "3000", "--host", "0.0.0.0", "--tokens", "t.txt"],
  [
    "serve",
    "--http=0",
    "--allowed-origin",
    "http://a.test:1",
    "--allowed-origin=http://b.test:2",
    "--require-scope",
    "read",
    "--tokens",
    "t.txt",
    "--max-sessions",
    "8",
  ],
  ["serve", "--"],
];

/** Anything else: left to yargs (its help, version, messages, and its reading of the rest). */
const LEFT_TO_YARGS: readonly (readonly string[])[] = [
  ["codegen"],
  ["--app", "dist/app.js", "serve"],
  ["serve", "--help"],
  ["serve", "--version"],
  ["serve", "--bogus"],
  ["serve", "extra"],
  ["serve", "--app", "a.js", "--app", "b.js"],
  ["serve", "--http", "70000"],
  ["serve", "--http", "abc"],
  ["serve", "--confirm-timeout", "0"],
  ["serve", "--log-format", "xml"],
  ["serve", "--no-allow-stale"],
  ["serve", "--allow-stale", "true"],
  ["serve", "--allow-stale=false"],
  ["serve", "--pageSize", "5"],
  ["serve", "--require-scope", "a", "b"],
  ["serve", "--tokens", "t.txt"],
  ["serve", "--app", "-x"],
  ["serve", "--http"],
];

describe("livecmd serve's direct path reads its flags as yargs does, or leaves them to yargs", () => {
  for (const args of DIRECT) {
    it(`${args.join(" ")}: parsed directly, the flags yargs gives the handler`, async () => {
      const direct = directServeArguments(args);
      assert.ok(direct, "the direct path declined a common form");
      const yargsArgv = await throughYargs(args);
      assert.equal(typeof yargsArgv, "object", String(yargsArgv));
      assert.deepEqual(flagsOf(direct), flagsOf(yargsArgv as ServeArguments));
    });
  }
  for (const args of LEFT_TO_YARGS) {
    it(`${args.join(" ")}: left to yargs`, () => {
      assert.equal(directServeArguments(args), undefined);
    });
  }
});
