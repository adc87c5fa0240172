import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { createProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import { livecmd, root, scratchDir } from "../helpers/cli.ts";

async function catalogOf(fixture: string) {
  const generation = await generate(createProject(), {
    appFile: `test/fixtures/${fixture}/app/app.ts`,
    cwd: root,
  });
  assert.ok(generation.ok);
  return generation.plan.catalog;
}

test("ordering: adding an unrelated command file changes no other command's output (enum order comes from the syntax)", async () => {
  const [base, extra] = await Promise.all([catalogOf("ordering"), catalogOf("ordering-extra")]);
  for (const entry of base.commands) {
    assert.deepEqual(
      extra.commands.find((other) => other.name === entry.name),
      entry,
    );
  }
  const sort = (
    base.commands.find((entry) => entry.name === "customers_index")!.inputSchema
      .properties as Record<string, { enum?: string[] }>
  ).sort;
  assert.deepEqual(sort?.enum, ["name", "created_at", "balance"]);
});

test("ordering: output is byte-identical under the sv_SE and en_US locales", async () => {
  const dirs = await Promise.all(["sv", "en"].map((tag) => scratchDir(`locale-${tag}-`)));
  try {
    const runs = await Promise.all(
      [
        ["sv_SE.UTF-8", dirs[0]!],
        ["en_US.UTF-8", dirs[1]!],
      ].map(([locale, dir]) =>
        livecmd(
          [
            "codegen",
            "--app",
            "test/fixtures/ordering/app/app.ts",
            "--out",
            path.relative(root, dir!),
          ],
          { LC_ALL: locale, LANG: locale },
        ),
      ),
    );
    for (const run of runs) assert.equal(run.code, 0, run.stdout + run.stderr);
    // The notice names the --out it was written with; past that, the bytes are the same.
    const read = (dir: string, file: string) =>
      readFile(path.join(dir, file), "utf8").then((text) =>
        text.replaceAll(path.relative(root, dir), "<out>"),
      );
    for (const file of ["catalog.json", "templates.ts", "uris.ts"])
      assert.equal(await read(dirs[0]!, file), await read(dirs[1]!, file), file);
    const names = JSON.parse(
      await readFile(path.join(dirs[0]!, "catalog.json"), "utf8"),
    ).commands.map((c: { name: string }) => c.name);
    assert.deepEqual(
      names,
      ["ORDERS", "customers_index", "orders", "z_cmd"],
      "code-unit order, not the locale's",
    );
  } finally {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
});
