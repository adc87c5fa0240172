import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { entryPackageVersion } from "../../packages/livecmd/runtime/server/served/packageVersion.ts";

/** A project (version 2.3.4) with a server script and a tool's bin in node_modules (version 9.9.9). */
function project(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "livecmd-version-"));
  const files: [string, string][] = [
    ["package.json", JSON.stringify({ name: "shop", version: "2.3.4" })],
    ["src/server.ts", ""],
    ["node_modules/next/package.json", JSON.stringify({ name: "next", version: "9.9.9" })],
    ["node_modules/next/dist/bin/next", ""],
  ];
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), text);
  }
  return folder;
}

describe("serverInfo.version of an app served from its own program: its package's version", () => {
  const folder = project();
  const cases: [rule: string, entry: string | undefined, cwd: string, expected?: string][] = [
    ["the entry script's package", path.join(folder, "src/server.ts"), tmpdir(), "2.3.4"],
    ["an entry given relative to the working directory", "src/server.ts", folder, "2.3.4"],
    [
      "a tool's bin in node_modules (next start): the working directory's package, not the tool's",
      path.join(folder, "node_modules/next/dist/bin/next"),
      folder,
      "2.3.4",
    ],
    ["no entry script (a REPL): the working directory's package", undefined, folder, "2.3.4"],
    ["no package.json above either: none", undefined, path.parse(folder).root, undefined],
  ];
  for (const [rule, entry, cwd, expected] of cases)
    it(rule, () => assert.equal(entryPackageVersion({ entry, cwd }), expected));
});
