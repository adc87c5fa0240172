import assert from "node:assert/strict";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { openAppProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { listFiles } from "../../packages/livecmd-kit/generator/output/writeOutputs.ts";
import { WatchSession } from "../../packages/livecmd-kit/generator/watchCodegen.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import { root, scratchDir } from "../helpers/cli.ts";

/**
 * `codegen --watch` keeps what each stage made and redoes only what an edit can have changed.
 * Whatever it kept, after every edit its output folder must hold exactly what a cold
 * `livecmd codegen` of the edited sources makes, and it must write only the files whose bytes
 * that changed: a part kept although the edit changed it (stale output) fails here.
 */

/** An app of two command modules, one importing a shared type, as the sources a case edits. */
const APP: Record<string, string> = {
  "app.ts": `import { defineApp } from "livecmd";
import * as customers from "./commands/customers.ts";
import * as orders from "./commands/orders.ts";

export default defineApp({
  name: "shop",
  commands: { ...customers, ...orders },
  agent: { grant: [customers.customers_show, orders.orders_list] },
});
`,
  "types.ts": `export type Status = "open" | "closed";
`,
  "commands/customers.ts": `import { command, type Int } from "livecmd";

/** One customer by id. */
export const customers_show = command({ live: true }, async (ctx, id: Int) => ({ id }));
`,
  "commands/orders.ts": `import { command } from "livecmd";
import type { Status } from "../types.ts";

/** Orders in a status. */
export const orders_list = command({ live: true }, async (ctx, status: Status) => [status]);
`,
};

interface Edit {
  /** What each edited file holds after the edit (null: deleted). */
  files: Record<string, string | null>;
  /** Files under the output folder the edit must rewrite, and those it must remove. */
  written: string[];
  removed?: string[];
}

const cases: { rule: string; edit: Edit }[] = [
  {
    rule: "a changed signature re-renders exactly that command's parser, builder, types, catalog entry, page and example",
    edit: {
      files: {
        "commands/customers.ts": APP["commands/customers.ts"]!.replace("id: Int", "id: string"),
      },
      written: [
        "catalog.json",
        "skills/shop/SKILL.md",
        "skills/shop/references/customers_show.md",
        "templates.ts",
        "uris.ts",
      ],
    },
  },
  {
    rule: "a removed command loses its parts, and its page is removed",
    edit: {
      files: {
        "commands/orders.ts": `export const helper = 1;\n`,
        "app.ts": APP["app.ts"]!.replace(", orders.orders_list", ""),
      },
      written: ["catalog.json", "skills/shop/SKILL.md", "templates.ts", "uris.ts"],
      removed: ["skills/shop/references/orders_list.md"],
    },
  },
  {
    rule: "an edit of a shared type re-analyses the commands of the files importing it",
    edit: {
      files: { "types.ts": `export type Status = "open" | "held" | "closed";\n` },
      written: ["catalog.json", "skills/shop/references/orders_list.md", "templates.ts", "uris.ts"],
    },
  },
  {
    rule: "a command added to a module is discovered, its parts added in name order",
    edit: {
      files: {
        "commands/customers.ts": `${APP["commands/customers.ts"]}
/** Every customer. */
export const customers_all = command({ live: true }, async (ctx, city: string) => [city]);
`,
      },
      written: ["catalog.json", "templates.ts", "uris.ts"],
    },
  },
  {
    rule: "a renamed command's parts go under its new name, and its old page is removed",
    edit: {
      files: {
        "commands/customers.ts": APP["commands/customers.ts"]!.replace(
          "customers_show",
          "customers_get",
        ),
        "app.ts": APP["app.ts"]!.replace("customers.customers_show", "customers.customers_get"),
      },
      written: [
        "catalog.json",
        "skills/shop/SKILL.md",
        "skills/shop/references/customers_get.md",
        "templates.ts",
        "uris.ts",
      ],
      removed: ["skills/shop/references/customers_show.md"],
    },
  },
  {
    rule: "a description changed to one of the same length rewrites the files that show it",
    edit: {
      files: {
        "commands/orders.ts": APP["commands/orders.ts"]!.replace(
          "Orders in a status.",
          "Orders of a status.",
        ),
      },
      written: [
        "catalog.json",
        "skills/shop/SKILL.md",
        "skills/shop/references/orders_list.md",
        "uris.ts",
      ],
    },
  },
  {
    rule: "an edit that changes no output writes nothing",
    edit: {
      files: { "commands/orders.ts": `${APP["commands/orders.ts"]}// a comment\n` },
      written: [],
    },
  },
];

for (const { rule, edit } of cases) {
  test(`watch: ${rule}; the output is a cold codegen's`, async () => {
    const dir = await scratchDir("watch-incremental-");
    try {
      await writeSources(dir, APP);
      const logs: string[] = [];
      const options = {
        app: path.relative(root, path.join(dir, "app.ts")),
        out: path.relative(root, path.join(dir, "out")),
        force: false,
        cwd: root,
        log: (text: string) => void logs.push(text),
        rerun: "npx livecmd codegen",
      };
      const opened = openAppProject(options);
      assert.ok(opened.ok);
      const session = new WatchSession(opened, options);
      await session.generate([]);
      assert.deepEqual(await outputFolder(dir), await coldOutputs(dir), logs.join("\n"));

      await writeSources(dir, edit.files);
      logs.length = 0;
      await session.generate(Object.keys(edit.files).map((file) => path.join(dir, file)));
      assert.deepEqual(await outputFolder(dir), await coldOutputs(dir), logs.join("\n"));
      const said = logs.join("\n").split("\n");
      const listed = (verb: string) =>
        said
          .filter((line) => line.startsWith(`${verb} ${options.out}/`))
          .map((line) => line.slice(`${verb} ${options.out}/`.length))
          .sort();
      assert.deepEqual(listed("wrote"), edit.written.sort());
      assert.deepEqual(listed("removed"), (edit.removed ?? []).sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

async function writeSources(dir: string, files: Record<string, string | null>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(dir, file);
    if (text === null) await rm(target);
    else {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, text);
    }
  }
}

async function outputFolder(dir: string): Promise<Map<string, string>> {
  const out = path.join(dir, "out");
  const files = await listFiles(out);
  return new Map(
    await Promise.all(
      files.map(async (file) => [file, await readFile(path.join(out, file), "utf8")] as const),
    ),
  );
}

/** What a cold codegen makes of the sources now: a new Project, nothing kept. */
async function coldOutputs(dir: string): Promise<Map<string, string>> {
  const opened = openAppProject({ app: path.join(dir, "app.ts"), cwd: root });
  assert.ok(opened.ok);
  const generation = generate(opened.project, {
    appFile: path.relative(root, path.join(dir, "app.ts")),
    cwd: root,
    rerun: "npx livecmd codegen",
  });
  assert.ok(generation.ok, generation.ok ? "" : JSON.stringify(generation.diagnostics));
  return new Map([...generation.outputs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
