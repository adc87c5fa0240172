import assert from "node:assert/strict";
import { cp, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { sqliteDriverProblem } from "../../packages/livecmd/runtime/db/better-sqlite3/versionProblem.ts";
import { root } from "../helpers/cli.ts";
import { scratchProject, TICKETS_APP, type ScratchProject } from "../helpers/scratchProject.ts";

const TSCONFIG = JSON.stringify({
  compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true },
});

/** The project's app over stdio, through the SDK client, as a desktop host starts it. */
async function connect(project: ScratchProject, args: string[] = []): Promise<Client> {
  const client = new Client({ name: "serve-checks", version: "1.0.0" });
  const bin = path.join(project.dir, "node_modules/livecmd/bin/livecmd.js");
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "serve", ...args],
      cwd: project.dir,
      stderr: "pipe",
    }),
  );
  return client;
}

/** The app with one more command, granted, that codegen has not seen yet. */
const GROWN_APP = TICKETS_APP.replace(
  "export default defineApp({",
  "/** Every open ticket. */\nexport const tickets_open = command({ live: true }, (ctx) => []);\n\nexport default defineApp({",
)
  .replace("commands: { tickets_show }", "commands: { tickets_show, tickets_open }")
  .replace("grant: [tickets_show]", "grant: [tickets_show, tickets_open]");

describe("livecmd serve in an adopter's project", () => {
  it("refuses a catalog.json older than the app (exit 2, names the command and the fix); --allow-stale serves it as it is", async () => {
    const project = await scratchProject({ "tsconfig.json": TSCONFIG, "src/app.ts": TICKETS_APP }, [
      "tsx",
    ]);
    try {
      assert.equal((await project.livecmd(["codegen"])).code, 0);
      await project.write("src/app.ts", GROWN_APP);
      const refused = await project.livecmd(["serve"]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        /^livecmd: catalog\.json no longer matches app "desk": tickets_open is not in catalog\.json\. Run `npx livecmd codegen` \(then your build, where the app is compiled\) and restart \(or serve the catalog as it is: `allowStale: true` in the serving options, `--allow-stale` for livecmd serve\)/,
      );
      assert.equal(refused.stderr.trim().split("\n").length, 1);
      const client = await connect(project, ["--allow-stale"]);
      try {
        assert.deepEqual(
          (await client.listResourceTemplates()).resourceTemplates.map((template) => template.name),
          ["tickets_show"],
        );
      } finally {
        await client.close();
      }
    } finally {
      await project.remove();
    }
  });

  const versions: { rule: string; app: string; version: string }[] = [
    { rule: "the project's package.json version", app: TICKETS_APP, version: "3.2.1" },
    {
      rule: "defineApp({ version }), over package.json",
      app: TICKETS_APP.replace('name: "desk",', 'name: "desk",\n  version: "2026.12.1",'),
      version: "2026.12.1",
    },
  ];
  for (const { rule, app, version } of versions) {
    it(`tells its serverInfo: the app's name, and ${rule}`, async () => {
      const project = await scratchProject({ "tsconfig.json": TSCONFIG, "src/app.ts": app }, [
        "tsx",
      ]);
      try {
        assert.equal((await project.livecmd(["codegen"])).code, 0);
        const client = await connect(project);
        try {
          assert.deepEqual(client.getServerVersion(), { name: "desk", version });
        } finally {
          await client.close();
        }
      } finally {
        await project.remove();
      }
    });
  }

  it("stops before loading a better-sqlite3 13 on Node 20 (which crashes there), saying which to install", async () => {
    const project = await scratchProject({
      "tsconfig.json": TSCONFIG,
      "src/app.ts": TICKETS_APP,
      "node_modules/better-sqlite3/package.json": JSON.stringify({
        name: "better-sqlite3",
        version: "13.0.0",
        main: "index.js",
      }),
    });
    try {
      // Node.js 22 runs better-sqlite3 13: there, nothing is wrong with it.
      if (Number(process.versions.node.split(".")[0]) >= 22)
        return assert.equal(sqliteDriverProblem(path.join(project.dir, "src/app.ts")), undefined);
      const run = await project.livecmd(["serve"]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /^livecmd: better-sqlite3 13\.0\.0 \(in .*node_modules\/better-sqlite3\) needs Node\.js 22 or later and crashes on Node\.js 20\.\S+; install version 12: npm install better-sqlite3@\^12$/m,
      );
    } finally {
      await project.remove();
    }
  });

  it("an app on node:sqlite, on a Node.js without it, is one line naming the Node.js it needs (exit 2); with it, it loads", async () => {
    const project = await scratchProject({
      "src/app.js": `import { DatabaseSync } from "node:sqlite";\nimport { defineApp } from "livecmd";\nconst sqlite = new DatabaseSync(":memory:");\nexport default defineApp({ name: "desk", commands: {}, agent: { grant: [] }, database: () => sqlite });\n`,
    });
    try {
      const run = await project.livecmd(["serve", "--app", "src/app.js", "--allow-stale"]);
      // With node:sqlite the module loads, and serving stops where this app has no catalog.
      if (process.getBuiltinModule?.("node:sqlite"))
        return assert.match(run.stderr, /app "desk" has no generated catalog/);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(
        run.stderr,
        `livecmd: src/app.js: the app imports node:sqlite, which Node.js ${process.versions.node} does not have (it is built in from Node.js 22.13): run it on Node.js 22.13 or later, or use better-sqlite3 there (npm install better-sqlite3@^12)\n`,
      );
    } finally {
      await project.remove();
    }
  });

  /**
   * better-sqlite3 as npm 12 and pnpm 10 leave it when its install script is not approved: the
   * package itself (the repository's copy, and the packages it requires), without `build/`.
   */
  async function unbuiltBetterSqlite3(project: ScratchProject): Promise<void> {
    const installed = path.join(project.dir, "node_modules/better-sqlite3");
    await cp(path.join(root, "node_modules/better-sqlite3"), installed, {
      recursive: true,
      filter: (source) => !source.startsWith(path.join(root, "node_modules/better-sqlite3/build")),
    });
    for (const name of ["bindings", "file-uri-to-path"])
      await symlink(
        path.join(root, "node_modules", name),
        path.join(project.dir, "node_modules", name),
      );
  }

  const unbuilt: { rule: string; app: string }[] = [
    {
      rule: "opened as the app module loads",
      app: 'const sqlite = new Database(":memory:");\nexport default defineApp({ name: "desk", commands: {}, agent: { grant: [] }, database: () => sqlite });\n',
    },
    {
      rule: "opened by the app's database function",
      app: 'export default defineApp({ name: "desk", commands: {}, agent: { grant: [] }, database: () => new Database(":memory:") });\n',
    },
  ];
  for (const { rule, app } of unbuilt) {
    it(`names better-sqlite3 without its native module, ${rule}, and how to build it (exit 2)`, async () => {
      const project = await scratchProject({
        "src/app.js": `import Database from "better-sqlite3";\nimport { defineApp } from "livecmd";\n${app}`,
      });
      try {
        await unbuiltBetterSqlite3(project);
        const run = await project.livecmd(["serve", "--app", "src/app.js", "--allow-stale"]);
        assert.equal(run.code, 2, run.stderr);
        assert.match(
          run.stderr,
          /better-sqlite3 \(in \S*node_modules\/better-sqlite3\) has no native module: its install script, which fetches or builds it, did not run .*"allowScripts": \{ "better-sqlite3": true \}.*then build it: npm rebuild better-sqlite3$/m,
        );
      } finally {
        await project.remove();
      }
    });
  }
});
