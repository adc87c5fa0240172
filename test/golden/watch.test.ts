import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { root, scratchDir } from "../helpers/cli.ts";

/** Resolves when `stdout` has printed `count` lines matching `pattern`. */
function linesMatching(
  stdout: NodeJS.ReadableStream,
  pattern: RegExp,
  count: number,
): Promise<void> {
  let seen = 0;
  let buffered = "";
  return new Promise((resolve) => {
    stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      seen += lines.filter((line) => pattern.test(line)).length;
      if (seen >= count) resolve();
    });
  });
}

test(
  "codegen --watch regenerates after a source edit, and keeps watching after an input error",
  { timeout: 60_000 },
  async () => {
    const dir = await scratchDir("watch-");
    await cp(path.join(root, "test/fixtures/scalars/app"), path.join(dir, "app"), {
      recursive: true,
    });
    const child = spawn(
      process.execPath,
      [
        "packages/livecmd/bin/livecmd.js",
        "codegen",
        "--watch",
        "--app",
        path.relative(root, `${dir}/app/app.ts`),
        "--out",
        path.relative(root, `${dir}/out`),
      ],
      { cwd: root },
    );
    try {
      const firstRun = linesMatching(child.stdout, /^watching /, 1);
      await firstRun;
      const appFile = path.join(dir, "app/app.ts");
      const source = await readFile(appFile, "utf8");

      const broken = linesMatching(child.stdout, /error CG003/, 1);
      await writeFile(
        appFile,
        source.replace("async (ctx, id: Int) => id);", "async (ctx, id) => id);"),
      );
      await broken;

      const regenerated = linesMatching(child.stdout, /out\/: [1-9]\d* written/, 1);
      await writeFile(
        appFile,
        source.replace("async (ctx, id: Int) => id);", "async (ctx, id: string) => id);"),
      );
      await regenerated;
      assert.match(
        await readFile(path.join(dir, "out/templates.ts"), "utf8"),
        /id: read\.string\("id", path\.id\)/,
      );
    } finally {
      child.kill();
      await rm(dir, { recursive: true, force: true });
    }
  },
);
