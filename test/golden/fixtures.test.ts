import { readdir } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { createProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { formatDiagnostics } from "../../packages/livecmd-kit/generator/output/formatDiagnostics.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import { assertGoldenFiles } from "../helpers/golden.ts";

const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "test/fixtures");

/**
 * Every fixture is an app in `app/` and the exact files the generator makes of it in
 * `expected/`; an app with errors expects `diagnostics.txt` instead.
 */
for (const name of (await readdir(fixtures)).sort()) {
  test(`fixture ${name}: generated files match expected/ byte for byte`, async () => {
    const generation = await generate(createProject(), {
      appFile: `test/fixtures/${name}/app/app.ts`,
      cwd: root,
    });
    const actual = generation.ok
      ? generation.outputs
      : new Map([["diagnostics.txt", formatDiagnostics(generation.diagnostics)]]);
    await assertGoldenFiles(path.join(fixtures, name, "expected"), actual);
  });
}
