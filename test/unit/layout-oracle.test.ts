import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { createProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import { root, scratchDir } from "../helpers/cli.ts";
import { writeHostileApp } from "../helpers/hostileApp.ts";
import {
  PRINT_WIDTH,
  TAB_WIDTH,
} from "../../packages/livecmd-kit/generator/render/layout/layOut.ts";
import { PRETTIER_OPTIONS, prettierFormat } from "../helpers/prettierOracle.ts";
import { listFiles } from "../../packages/livecmd-kit/generator/output/writeOutputs.ts";
import { propertyKey } from "../../packages/livecmd-kit/generator/render/layout/propertyKey.ts";

/**
 * The render stage prints the final layout itself, with no formatter pass; prettier is the
 * oracle: formatting any generated file must leave it unchanged, byte for byte.
 */
async function assertPrettierStable(
  label: string,
  outputs: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [file, text] of outputs) {
    if (!/\.(ts|json|md)$/.test(file)) continue;
    assert.equal(
      await prettierFormat(file, text),
      text,
      `${label}/${file}: prettier would change the layout`,
    );
  }
}

async function filesIn(dir: string): Promise<Map<string, string>> {
  const files = await listFiles(dir);
  return new Map(
    await Promise.all(
      files.map(async (file) => [file, await readFile(path.join(dir, file), "utf8")] as const),
    ),
  );
}

test("layout oracle: the example app's generated/ is what prettier prints", async () => {
  await assertPrettierStable("generated", await filesIn(path.join(root, "generated")));
});

const fixtures = path.join(root, "test/fixtures");
for (const name of (await readdir(fixtures)).sort()) {
  test(`layout oracle: fixture ${name}'s expected files are what prettier prints`, async () => {
    await assertPrettierStable(
      `test/fixtures/${name}/expected`,
      await filesIn(path.join(fixtures, name, "expected")),
    );
  });
}

test("layout oracle: an app with hostile text, long names and long unions is what prettier prints", async () => {
  const app = await writeHostileApp(await scratchDir("hostile-"));
  const generation = await generate(createProject(), {
    appFile: path.relative(root, app),
    cwd: root,
  });
  assert.ok(generation.ok, generation.ok ? "" : JSON.stringify(generation.diagnostics, null, 2));
  await assertPrettierStable("hostile", generation.outputs);
});

test("layout oracle: the render stage prints at the width and indent of the prettier options it is held to", () => {
  assert.equal(PRINT_WIDTH, PRETTIER_OPTIONS.printWidth);
  assert.equal(TAB_WIDTH, PRETTIER_OPTIONS.tabWidth);
});

const KEYS = [
  ["an ASCII identifier", "_a$1"],
  ["a Latin letter past ASCII", "café"],
  ["a Hebrew letter", "ℵx"],
  ["a zero-width non-joiner inside", "a\u200cb"],
  ["an astral letter", "𐊧"],
  ["a middle dot", "a·b"],
  ["a hyphen", "a-b"],
  ["a leading digit", "1a"],
  ["the empty key", ""],
] as const;

for (const [rule, key] of KEYS)
  test(`layout oracle: a property key with ${rule} is quoted as prettier leaves it`, async () => {
    for (const text of [
      `const x = { ${propertyKey(key)}: 1 };\n`,
      `type T = { ${propertyKey(key)}: 1 };\n`,
    ])
      assert.equal(await prettierFormat("keys.ts", text), text);
  });
