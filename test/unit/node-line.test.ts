import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

const root = fileURLToPath(new URL("../..", import.meta.url));
const opensInMemory = "new (require('better-sqlite3'))(':memory:').close()";

test(
  "a command on Node 22 opens better-sqlite3 while the machine's node, meanwhile, still loads its own binary from node_modules",
  { timeout: 600_000 },
  async () => {
    const line = spawn(
      "bash",
      [
        "scripts/better-sqlite3-line.sh",
        "22",
        "node",
        "-e",
        `${opensInMemory}; console.log(process.versions.node); process.stdin.resume()`,
      ],
      { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
    );
    try {
      const [printed] = (await once(line.stdout, "data")) as [Buffer];
      assert.match(
        printed.toString(),
        /^22\./,
        "the command ran on Node 22 with better-sqlite3 open",
      );

      // Swapping the file in node_modules for the line's would fail this with NODE_MODULE_VERSION.
      await promisify(execFile)(process.execPath, ["-e", opensInMemory], { cwd: root });

      line.stdin.end();
      const [code] = await once(line, "exit");
      assert.equal(code, 0);
    } finally {
      line.kill();
    }
  },
);
