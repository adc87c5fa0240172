import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/cli.ts";

/**
 * Every module a fresh process loads when it imports `livecmd/internal` as the CLIs do (the
 * compiled entry, `npm test` builds it first): each ES module as the loader sees it, and each
 * CommonJS one left in `require`'s cache.
 */
function loadedByInternal(): string[] {
  const folder = mkdtempSync(path.join(tmpdir(), "livecmd-internal-"));
  try {
    const list = path.join(folder, "loaded.txt");
    const hooks = `data:text/javascript,${encodeURIComponent(
      `import { appendFileSync } from "node:fs";
       export async function load(url, context, next) {
         appendFileSync(${JSON.stringify(list)}, url + "\\n");
         return next(url, context);
       }`,
    )}`;
    const script = `
      import { register, createRequire } from "node:module";
      import { appendFileSync } from "node:fs";
      register(${JSON.stringify(hooks)});
      await import("livecmd/internal");
      for (const file of Object.keys(createRequire(import.meta.url).cache))
        appendFileSync(${JSON.stringify(list)}, file + "\\n");`;
    execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: path.join(root, "packages/livecmd"),
    });
    return readFileSync(list, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The runtime's modules no CLI command needs before it runs: the engine, the servers, the databases'. */
const HEAVY =
  /\/dist\/runtime\/(model\/appEngine|db\/(openDatabase|sqlite\/|postgres\/|node-sqlite\/|node-postgres\/|prisma\/)|server\/(served\/servedApp|methods\/buildServer|http\/(serveHttp|httpEndpoint)|stdio\/|sessions\/))/;

// Every CLI command imports livecmd/internal, `codegen` and `serve --help` included; what one
// command alone needs (the MCP SDK for `inspect --reads` and stdio, the PostgreSQL install for
// `db install`) loads on that command's call, and ajv on the first validator's.
test("livecmd/internal loads no package (the MCP SDK, ajv, a database driver) and no transport", () => {
  const loaded = loadedByInternal();
  assert.ok(
    loaded.some((file) => file.endsWith("/dist/runtime/internal.js")),
    "the entry loaded",
  );
  assert.deepEqual(
    loaded.filter((file) => file.includes("/node_modules/")),
    [],
    "packages loaded",
  );
  assert.deepEqual(
    loaded.filter((file) => HEAVY.test(file)),
    [],
    "the engine, a server or a database's modules loaded",
  );
});
