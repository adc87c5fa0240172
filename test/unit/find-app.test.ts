import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import { root, scratchDir } from "../helpers/cli.ts";

const show = (command: string) => `/** One thing. */
export const things_show = ${command}({ live: true }, async (_ctx, id: number) => ({ id }));`;

/** Calls that are not livecmd's: a chain the checker would have to infer to name its callee. */
const CHAIN = `const rows = [[1, 2]].map((row) => row.filter((n) => n > 1)).flat().map(String);`;

/** How an app module may call defineApp, and what codegen makes of it. */
const CASES = [
  {
    rule: "an imported defineApp",
    header: `import { command, defineApp } from "livecmd";`,
    call: "defineApp",
    found: true,
  },
  {
    rule: "defineApp imported under another name",
    header: `import { command, defineApp as makeApp } from "livecmd";`,
    call: "makeApp",
    found: true,
  },
  {
    rule: "a member of livecmd imported as a namespace",
    header: `import * as livecmd from "livecmd";`,
    command: "livecmd.command",
    call: "livecmd.defineApp",
    found: true,
  },
  {
    rule: "a function of the same name that is not livecmd's",
    header: `import { command } from "livecmd";\nconst tools = { defineApp: (app: object) => app };`,
    call: "tools.defineApp",
    found: false,
  },
];

describe("codegen finds the app module's one defineApp call", async () => {
  const dir = await scratchDir("find-app-");
  after(() => rm(dir, { recursive: true, force: true }));

  for (const { rule, header, command = "command", call, found } of CASES)
    test(`${rule}: ${found ? "found" : "no app (CG007)"}, among calls that are not livecmd's`, async () => {
      const file = path.join(dir, `${rule.replaceAll(" ", "-")}.ts`);
      await writeFile(
        file,
        `${header}\n${CHAIN}\n${show(command)}\nexport default ${call}({ name: "things", commands: { things_show }, agent: { grant: [things_show] } });\n`,
      );
      const generation = await generate(createProject(), {
        appFile: path.relative(root, file),
        cwd: root,
      });
      if (found) assert.ok(generation.ok, JSON.stringify(!generation.ok && generation.diagnostics));
      else
        assert.deepEqual(!generation.ok && generation.diagnostics.map((each) => each.code), [
          "CG007",
        ]);
    });
});
