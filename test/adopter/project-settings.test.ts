import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { root } from "../helpers/cli.ts";
import { scratchProject, TICKETS_APP } from "../helpers/scratchProject.ts";

const TSCONFIG = JSON.stringify({
  compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true },
});

describe("the CLI finds an adopter's app as the project says", () => {
  const found: { rule: string; files: Record<string, string>; args?: string[]; out: string }[] = [
    {
      rule: "with no settings, src/app.ts, written to src/generated",
      files: { "src/app.ts": TICKETS_APP },
      out: "src/generated",
    },
    {
      rule: "with no settings and no src/app.ts, app.ts, written to generated",
      files: { "app.ts": TICKETS_APP },
      out: "generated",
    },
    {
      rule: 'the "livecmd" key of package.json',
      files: {
        "server/main.ts": TICKETS_APP,
        "package.json": JSON.stringify({
          name: "helpdesk",
          type: "module",
          livecmd: { app: "server/main.ts", out: "server/gen" },
        }),
      },
      out: "server/gen",
    },
    {
      rule: "livecmd.config.json",
      files: {
        "server/main.ts": TICKETS_APP,
        "livecmd.config.json": JSON.stringify({ app: "server/main.ts" }),
      },
      out: "server/generated",
    },
    {
      rule: "livecmd.config.ts",
      files: {
        "server/main.ts": TICKETS_APP,
        "livecmd.config.ts":
          'import { defineConfig } from "livecmd";\nexport default defineConfig({ app: "server/main.ts", out: "server/out" });\n',
      },
      out: "server/out",
    },
    {
      rule: "flags, over the settings",
      files: {
        "src/app.ts": TICKETS_APP,
        "livecmd.config.json": JSON.stringify({ app: "nowhere.ts" }),
      },
      args: ["--app", "src/app.ts"],
      out: "src/generated",
    },
  ];
  for (const { rule, files, args = [], out } of found) {
    it(`codegen finds the app by ${rule}`, async () => {
      const project = await scratchProject({ "tsconfig.json": TSCONFIG, ...files }, ["tsx"]);
      try {
        const run = await project.livecmd(["codegen", ...args]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.ok(existsSync(path.join(project.dir, out, "templates.ts")), `${out}/templates.ts`);
        const notice = (await readFile(path.join(project.dir, out, "uris.ts"), "utf8")).split(
          "\n",
        )[0]!;
        assert.match(
          notice,
          new RegExp(`run \`npx livecmd codegen${args.length ? " --app src/app.ts" : ""}\`\\.$`),
        );
      } finally {
        await project.remove();
      }
    });
  }

  const refused: { rule: string; files: Record<string, string>; args?: string[]; says: RegExp }[] =
    [
      {
        rule: "no app module anywhere",
        files: {},
        says: /^livecmd: no app module: tried src\/app\.ts and app\.ts in .*; pass --app <file>/,
      },
      {
        rule: "a setting naming a missing app",
        files: { "livecmd.config.json": JSON.stringify({ app: "src/gone.ts" }) },
        says: /^livecmd: livecmd\.config\.json names the app module src\/gone\.ts, which does not exist/,
      },
      {
        rule: "an unknown setting",
        files: { "livecmd.config.json": JSON.stringify({ app: "src/app.ts", scheme: "x" }) },
        says: /has an unknown setting "scheme"; the settings are app, out, tsconfig/,
      },
      {
        rule: "a setting that is not a path",
        files: { "livecmd.config.json": JSON.stringify({ out: 3 }) },
        says: /"out" must be a non-empty path, got 3/,
      },
      {
        rule: "settings in two places",
        files: {
          "livecmd.config.json": "{}",
          "package.json": JSON.stringify({ type: "module", livecmd: {} }),
        },
        says: /settings are in both livecmd\.config\.json and the "livecmd" key of package\.json/,
      },
      {
        rule: "a config file that is not JSON",
        files: { "livecmd.config.json": "{ app: " },
        says: /^livecmd: livecmd\.config\.json is not valid JSON/,
      },
      {
        rule: "a mistyped flag",
        files: { "src/app.ts": TICKETS_APP },
        args: ["--chek"],
        says: /^livecmd: Unknown argument: chek; see livecmd --help\n$/,
      },
    ];
  for (const { rule, files, args = [], says } of refused) {
    it(`${rule}: exit 2 and one line on stderr, no stack, no help`, async () => {
      const project = await scratchProject({ "tsconfig.json": TSCONFIG, ...files });
      try {
        for (const command of [["codegen", "--check"], ["inspect"]]) {
          const run = await project.livecmd([...command, ...args]);
          assert.equal(run.code, 2, run.stdout + run.stderr);
          assert.match(run.stderr, says);
          assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
          assert.equal(run.stdout, "");
        }
      } finally {
        await project.remove();
      }
    });
  }
});

describe("codegen resolves imports as the app's tsconfig says", () => {
  const TICKETS =
    "/** One ticket by id. */\nexport const tickets_show = command({ live: true }, (ctx, id: Int) => ({ id }));\n";
  const COMMANDS = `import { command, type Int } from "livecmd";\n${TICKETS}`;
  const APP = `import { defineApp } from "livecmd";
import * as tickets from "@cmd/tickets";
import { tickets_show } from "@cmd/tickets";

export default defineApp({ name: "desk", commands: { ...tickets }, agent: { grant: [tickets_show] } });
`;
  const withPaths = (paths: Record<string, string[]>) =>
    JSON.stringify({
      compilerOptions: {
        module: "ESNext",
        moduleResolution: "Bundler",
        strict: true,
        baseUrl: ".",
        paths,
      },
      include: ["src"],
    });

  it("tsconfig paths (@cmd/* -> src/commands/*) reach the commands", async () => {
    const project = await scratchProject({
      "tsconfig.json": withPaths({ "@cmd/*": ["src/commands/*"] }),
      "src/app.ts": APP,
      "src/commands/tickets.ts": COMMANDS,
    });
    try {
      const run = await project.livecmd(["inspect"]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        /^tickets_show\s+live\s+yes\s+readOnly\s+-\s+desk:\/\/tickets_show\/\{id\}$/m,
      );
    } finally {
      await project.remove();
    }
  });

  const unresolved: { rule: string; app: string; says: RegExp }[] = [
    {
      rule: "a spread of commands",
      app: APP,
      says: /^src\/app\.ts:5:54 - error CG009: commands spreads tickets, which comes from "@cmd\/tickets" \(imported at src\/app\.ts:2\), which does not resolve; .*"paths" and "baseUrl"/m,
    },
    {
      rule: "a command named in commands",
      app: 'import { defineApp } from "livecmd";\nimport { tickets_show } from "@cmd/tickets";\n\nexport default defineApp({ name: "desk", commands: { tickets_show }, agent: { grant: [] } });\n',
      says: /^src\/app\.ts:4:54 - error CG009: commands names tickets_show, which comes from "@cmd\/tickets" \(imported at src\/app\.ts:2\)/m,
    },
    {
      rule: "a grant",
      app: 'import { defineApp } from "livecmd";\nimport * as tickets from "./commands/tickets.ts";\nimport * as legacy from "@legacy/tickets";\n\nexport default defineApp({ name: "desk", commands: { ...tickets }, agent: { grant: [legacy.tickets_show] } });\n',
      says: /^src\/app\.ts:5:85 - error CG009: agent\.grant lists "legacy\.tickets_show", which comes from "@legacy\/tickets" \(imported at src\/app\.ts:3\), which does not resolve/m,
    },
  ];
  for (const { rule, app, says } of unresolved) {
    it(`an import that does not resolve is named at ${rule} (CG009), not called a stray command`, async () => {
      const project = await scratchProject({
        "tsconfig.json": withPaths({ "@cmd/*": ["src/handlers/*"] }),
        "src/app.ts": app,
        "src/commands/tickets.ts": COMMANDS,
      });
      try {
        const run = await project.livecmd(["codegen", "--check"]);
        assert.equal(run.code, 2);
        assert.match(run.stdout, says);
        assert.doesNotMatch(run.stdout, /CG006/);
      } finally {
        await project.remove();
      }
    });
  }

  it("a solution-style tsconfig (references) is followed to the project holding the app", async () => {
    const project = await scratchProject({
      "tsconfig.json": JSON.stringify({
        files: [],
        references: [{ path: "./tsconfig.node.json" }, { path: "./tsconfig.app.json" }],
      }),
      "tsconfig.node.json": JSON.stringify({
        compilerOptions: { composite: true, module: "NodeNext", moduleResolution: "NodeNext" },
        include: ["scripts"],
      }),
      "tsconfig.app.json": JSON.stringify({
        compilerOptions: {
          composite: true,
          module: "ESNext",
          moduleResolution: "Bundler",
          strict: true,
          baseUrl: ".",
          paths: { "@cmd/*": ["src/commands/*"] },
        },
        include: ["src"],
      }),
      "src/app.ts": APP,
      "src/commands/tickets.ts": COMMANDS,
    });
    try {
      const run = await project.livecmd(["inspect"]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /desk:\/\/tickets_show\/\{id\}/);
    } finally {
      await project.remove();
    }
  });

  it("a tsconfig that cannot be read is one line and exit 2", async () => {
    const project = await scratchProject({
      "tsconfig.json": '{ "compilerOptions": { "module": "nope" } }',
      "src/app.ts": TICKETS_APP,
    });
    try {
      const run = await project.livecmd(["codegen"]);
      assert.equal(run.code, 2);
      assert.match(
        run.stdout,
        /^livecmd codegen: cannot read .*tsconfig\.json: Argument for '--module' option must be/,
      );
    } finally {
      await project.remove();
    }
  });
});

describe("a compiled app module is refused, naming its TypeScript source", () => {
  const COMPILED = "export default {};\n";
  const OUT_TO_ROOT = JSON.stringify({ compilerOptions: { outDir: "dist", rootDir: "src" } });
  const cases: { rule: string; files: Record<string, string>; app: string; pass: string }[] = [
    {
      rule: "tsc's output maps back from outDir to rootDir",
      files: { "tsconfig.json": OUT_TO_ROOT, "src/app.ts": TICKETS_APP, "dist/app.js": COMPILED },
      app: "dist/app.js",
      pass: "--app src/app.ts",
    },
    {
      rule: "an .mjs is compiled from an .mts",
      files: { "tsconfig.json": OUT_TO_ROOT, "src/app.mts": TICKETS_APP, "dist/app.mjs": COMPILED },
      app: "dist/app.mjs",
      pass: "--app src/app.mts",
    },
    {
      rule: "a module beside its source",
      files: { "tsconfig.json": TSCONFIG, "src/app.ts": TICKETS_APP, "src/app.js": COMPILED },
      app: "src/app.js",
      pass: "--app src/app.ts",
    },
    {
      rule: "no TypeScript source found",
      files: { "tsconfig.json": OUT_TO_ROOT, "dist/app.js": COMPILED },
      app: "dist/app.js",
      pass: "--app with the TypeScript module it is compiled from",
    },
  ];
  for (const { rule, files, app, pass } of cases) {
    it(`${rule}: exit 2 and one line that says to pass ${pass}`, async () => {
      const project = await scratchProject(files);
      try {
        const commands = [["codegen"], ["codegen", "--check"], ["codegen", "--watch"], ["inspect"]];
        for (const command of commands) {
          const run = await project.livecmd([...command, "--app", app]);
          assert.equal(run.code, 2, run.stdout + run.stderr);
          assert.equal(
            run.stdout,
            `livecmd ${command[0]}: ${app} is JavaScript; the app's commands are read from its TypeScript source, whose types make the templates and their parsers: pass ${pass}\n`,
          );
        }
        assert.ok(!existsSync(path.join(project.dir, "dist/generated")));
      } finally {
        await project.remove();
      }
    });
  }

  it("inspect --cost without tsx names tsx alone: the compiled app is no way round it", async () => {
    const project = await scratchProject({ "tsconfig.json": TSCONFIG, "src/app.ts": TICKETS_APP });
    try {
      const run = await project.livecmd(["inspect", "--cost", "--app", "src/app.ts"]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stdout, /^app "desk" \(src\/app\.ts\): 1 command/);
      assert.equal(
        run.stderr,
        "livecmd: loading src/app.ts, which is TypeScript, needs tsx, which is not installed: npm install --save-dev tsx@^4.0.0\n",
      );
    } finally {
      await project.remove();
    }
  });
});

describe("versions", () => {
  it("livecmd --version is livecmd's own, not the project's", async () => {
    const project = await scratchProject({});
    try {
      const run = await project.livecmd(["--version"]);
      const own = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")).version;
      assert.equal(run.stdout.trim(), own);
      assert.notEqual(own, "3.2.1");
    } finally {
      await project.remove();
    }
  });
});
