import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { run } from "../helpers/cli.ts";
import { packLivecmd, projectEnv } from "../helpers/packed.ts";
import { scratchProject } from "../helpers/scratchProject.ts";
import { INSPECTOR_VERSION, inspectorCommand, nodeLine } from "../helpers/peerTools.ts";
import { packageManagerOf } from "../../packages/livecmd/cli/packageManager.ts";
import { starterDriver } from "../../packages/livecmd-kit/cli/init/starterFiles.ts";
import {
  recordInstallScripts,
  type ScriptSettings,
} from "../../packages/livecmd-kit/cli/init/installScripts.ts";
import type { Report } from "../../packages/livecmd/cli/doctor/report.ts";

/** livecmd's version, which both packages carry. */
const { version: VERSION } = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../../packages/livecmd/package.json"), "utf8"),
) as { version: string };

describe("livecmd init", () => {
  it(
    "in an empty folder: after installing livecmd and livecmd-kit, init and the two commands it prints read a template as an agent would",
    { timeout: 600_000 },
    async () => {
      const scratch = await mkdtemp(path.join(tmpdir(), "livecmd-init-"));
      const project = path.join(scratch, "team-notes");
      try {
        const tarballs = await packLivecmd(scratch);
        await run("mkdir", [project], { cwd: scratch });
        // The README's install: the runtime, then the dev tool as a dev dependency.
        for (const args of [[tarballs.livecmd], ["--save-dev", tarballs.kit]]) {
          const installed = await run(
            "npm",
            ["install", "--no-audit", "--no-fund", "--prefer-offline", ...args],
            { cwd: project, env: projectEnv(), timeoutMs: 300_000 },
          );
          assert.equal(installed.code, 0, installed.stderr);
        }

        const init = await run(process.execPath, ["node_modules/livecmd/bin/livecmd.js", "init"], {
          cwd: project,
          env: projectEnv(),
          timeoutMs: 400_000,
        });
        assert.equal(init.code, 0, init.stdout + init.stderr);
        // npm 11 warns of every install script package.json does not decide on (esbuild comes with tsx).
        assert.doesNotMatch(init.stdout + init.stderr, /install.scripts/i);
        assert.match(init.stdout, /^wrote src\/app\.ts \(SQLite through better-sqlite3\)$/m);
        assert.match(init.stdout, /^src\/generated\/: 5 written/m);
        const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
        assert.equal(manifest.type, "module");
        assert.deepEqual(
          [manifest.scripts.codegen, manifest.scripts.serve],
          ["livecmd codegen", "livecmd serve"],
        );
        assert.ok(
          manifest.dependencies["better-sqlite3"] &&
            manifest.devDependencies.tsx &&
            manifest.devDependencies["livecmd-kit"],
        );
        assert.equal(manifest.devDependencies["ts-morph"], undefined, "the kit brings ts-morph");
        // An ORM added later (drizzle-orm's declarations name drivers it does not install) compiles.
        const tsconfig = JSON.parse(await readFile(path.join(project, "tsconfig.json"), "utf8"));
        assert.equal(tsconfig.compilerOptions.skipLibCheck, true);

        // The printed commands, run as printed (the Inspector from this repository rather than a download).
        const printed = init.stdout
          .split("\n")
          .filter((line) =>
            line.startsWith(`  npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} `),
          );
        assert.equal(printed.length, 2, init.stdout);
        const [node22, inspectorCli] = inspectorCommand();
        const [listing, reading] = await Promise.all(
          printed.map((line) =>
            run(node22, [inspectorCli, ...line.trim().split(/\s+/).slice(3)], {
              cwd: project,
              env: projectEnv(),
              timeoutMs: 120_000,
            }),
          ),
        );
        assert.equal(listing!.code, 0, listing!.stderr);
        assert.match(listing!.stdout, /"uriTemplate": "team-notes:\/\/notes_show\/\{id\}"/);
        assert.equal(reading!.code, 0, reading!.stderr);
        assert.match(reading!.stdout, /Ask your agent to keep an eye on this note\./);

        // And the project compiles with its own tsc, for plain Node in production.
        const compiled = await run(process.execPath, ["node_modules/typescript/bin/tsc"], {
          cwd: project,
          env: projectEnv(),
          timeoutMs: 120_000,
        });
        assert.equal(compiled.code, 0, compiled.stdout + compiled.stderr);
        assert.ok(existsSync(path.join(project, "dist/app.js")));
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  );

  it("the untouched starter passes livecmd doctor on both eras, every step ok (its example is where the docs say to write one)", async () => {
    const project = await scratchProject({}, [
      "tsx",
      "better-sqlite3",
      "@modelcontextprotocol/client",
    ]);
    try {
      for (const args of [["init", "--no-install"], ["codegen"]]) {
        const step = await project.livecmd(args);
        assert.equal(step.code, 0, step.stdout + step.stderr);
      }
      // A start compiled on the fly waits on a loaded machine: each answer gets a minute.
      const doctor = await project.livecmd(
        [
          "doctor",
          "--json",
          "--timeout",
          "60",
          "--",
          process.execPath,
          "node_modules/livecmd/bin/livecmd.js",
          "serve",
        ],
        { NOTES_DB: ":memory:" },
      );
      assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
      const report = JSON.parse(doctor.stdout) as Report;
      const { steps } = report;
      assert.deepEqual(
        report.eras.map((era) => era.served),
        [true, true],
      );
      assert.deepEqual(
        steps.filter((step) => step.status !== "ok"),
        [],
        "no warning and no failure",
      );
      assert.ok(
        steps.some(
          (step) =>
            step.step === "read template" && /\(id from the description\)/.test(step.detail),
        ),
        "the template read with the starter's own example",
      );
    } finally {
      await project.remove();
    }
  });

  const refusals: { rule: string; files: Record<string, string>; says: RegExp }[] = [
    {
      rule: "an app module already there",
      files: { "src/app.ts": "export {};\n" },
      says: /would overwrite src\/app\.ts; nothing was written/,
    },
    {
      rule: "a serve script of the project's",
      files: {
        "package.json": JSON.stringify({
          name: "desk",
          type: "module",
          scripts: { serve: "node server.js" },
        }),
      },
      says: /would overwrite the "serve" script \("node server\.js"\)/,
    },
    {
      rule: "a CommonJS project with JavaScript of its own",
      files: {
        "package.json": JSON.stringify({ name: "desk", type: "commonjs" }),
        "src/index.js": "module.exports = 1;\n",
      },
      says: /package\.json is not "type": "module"/,
    },
    {
      rule: "an untyped project with JavaScript of its own",
      files: {
        "package.json": JSON.stringify({ name: "desk" }),
        "index.js": "module.exports = 1;\n",
      },
      says: /package\.json is not "type": "module"/,
    },
  ];
  for (const { rule, files, says } of refusals) {
    it(`refuses ${rule}: exit 2, names it, writes nothing`, async () => {
      const project = await scratchProject(files);
      try {
        const before = await readFile(path.join(project.dir, "package.json"), "utf8");
        const init = await project.livecmd(["init", "--no-install"]);
        assert.equal(init.code, 2, init.stdout + init.stderr);
        assert.match(init.stderr, says);
        assert.equal(await readFile(path.join(project.dir, "package.json"), "utf8"), before);
        assert.equal(existsSync(path.join(project.dir, "tsconfig.json")), false);
      } finally {
        await project.remove();
      }
    });
  }

  it('a package.json of npm init -y ("type": "commonjs", no JavaScript yet) becomes an ES module', async () => {
    const project = await scratchProject({
      "package.json": JSON.stringify({ name: "desk", version: "1.0.0", type: "commonjs" }),
    });
    try {
      const init = await project.livecmd(["init", "--no-install"]);
      assert.equal(init.code, 0, init.stderr);
      const manifest = JSON.parse(await readFile(path.join(project.dir, "package.json"), "utf8"));
      assert.equal(manifest.type, "module");
    } finally {
      await project.remove();
    }
  });

  it("on a Node with node:sqlite (22, as users run it), the starter app opens SQLite through it and nothing native is installed", async () => {
    const project = await scratchProject({});
    try {
      const node22 = path.join(await nodeLine(22), "node");
      const init = await run(
        node22,
        [path.join(project.dir, "node_modules/livecmd/bin/livecmd.js"), "init", "--no-install"],
        {
          cwd: project.dir,
          env: projectEnv(),
        },
      );
      assert.equal(init.code, 0, init.stderr);
      assert.match(init.stdout, /^wrote src\/app\.ts \(SQLite through node:sqlite\)$/m);
      assert.match(
        await readFile(path.join(project.dir, "src/app.ts"), "utf8"),
        /^import \{ DatabaseSync \} from "node:sqlite";$/m,
      );
      assert.doesNotMatch(init.stdout, /better-sqlite3/);
    } finally {
      await project.remove();
    }
  });

  const managers = [
    {
      rule: "pnpm runs it (pnpm exec, pnpm dlx)",
      agent: "pnpm/10.34.8 npm/? node/v22.23.5 linux x64",
      lock: false,
      manager: "pnpm",
    },
    {
      rule: "npm runs it (npx, npm exec)",
      agent: "npm/11.19.1 node/v22.23.5 linux x64",
      lock: true,
      manager: "npm",
    },
    {
      rule: "run directly, in a project with pnpm-lock.yaml",
      agent: "",
      lock: true,
      manager: "pnpm",
    },
    { rule: "run directly, with no lock file of pnpm's", agent: "", lock: false, manager: "npm" },
  ] as const;
  for (const { rule, agent, lock, manager } of managers) {
    it(`installs with ${manager} when ${rule}`, async () => {
      const project = await scratchProject(
        lock ? { "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" } : {},
      );
      try {
        assert.equal(packageManagerOf(project.dir, agent), manager);
      } finally {
        await project.remove();
      }
    });
  }

  const scriptDecisions: {
    rule: string;
    manager: "npm" | "pnpm";
    installing: string[];
    before: ScriptSettings;
    after: ScriptSettings;
  }[] = [
    {
      rule: "npm: esbuild's script (tsx's compiler) is denied, better-sqlite3's (its native build) allowed",
      manager: "npm",
      installing: ["livecmd", "better-sqlite3", "tsx"],
      before: {},
      after: { allowScripts: { "better-sqlite3": true, esbuild: false } },
    },
    {
      rule: "npm: a decision of the project's own stays",
      manager: "npm",
      installing: ["tsx"],
      before: { allowScripts: { esbuild: true } },
      after: { allowScripts: { esbuild: true } },
    },
    {
      rule: "pnpm: the same decisions, as pnpm reads them",
      manager: "pnpm",
      installing: ["better-sqlite3", "tsx"],
      before: {},
      after: {
        pnpm: { onlyBuiltDependencies: ["better-sqlite3"], ignoredBuiltDependencies: ["esbuild"] },
      },
    },
    {
      rule: "nothing for a package init does not install (tsx declared already)",
      manager: "npm",
      installing: ["livecmd"],
      before: {},
      after: {},
    },
  ];
  for (const { rule, manager, installing, before, after } of scriptDecisions) {
    it(`records install-script decisions in package.json: ${rule}`, () => {
      const manifest = structuredClone(before);
      recordInstallScripts(manifest, manager, installing);
      assert.deepEqual(manifest, after);
    });
  }

  const driverByNode = [
    { node: "20.20.2", driver: "better-sqlite3" },
    { node: "22.12.0", driver: "better-sqlite3" },
    { node: "22.13.0", driver: "node:sqlite" },
    { node: "23.3.0", driver: "better-sqlite3" },
    { node: "23.4.0", driver: "node:sqlite" },
    { node: "24.0.0", driver: "node:sqlite" },
  ];
  for (const { node, driver } of driverByNode) {
    it(`the starter's driver on Node ${node} is ${driver} (node:sqlite once it is unflagged)`, () => {
      assert.equal(starterDriver(node), driver);
    });
  }

  it("--no-install writes the app and prints the installs it leaves to you", async () => {
    const project = await scratchProject({
      "package.json": JSON.stringify({ name: "@acme/Help Desk", version: "1.0.0" }),
    });
    try {
      const init = await project.livecmd(["init", "--no-install"]);
      assert.equal(init.code, 0, init.stderr);
      assert.match(
        await readFile(path.join(project.dir, "src/app.ts"), "utf8"),
        /name: "help-desk",/,
      );
      // livecmd's two packages at its own version, undeclared in this package.json.
      assert.match(
        init.stdout,
        new RegExp(
          `^to install what the app needs, run: npm install --save livecmd@${VERSION} better-sqlite3@\\^12\\.0\\.0$`,
          "m",
        ),
      );
      assert.match(
        init.stdout,
        new RegExp(
          `^to install what the app needs, run: npm install --save-dev livecmd-kit@${VERSION} tsx@\\^4\\.0\\.0 typescript @types/node@`,
          "m",
        ),
      );
      // As a shell reads the printed line: one word per package.
      const line = /^to install what the app needs, run: (npm install --save-dev .*)$/m.exec(
        init.stdout,
      )![1]!;
      const words = await run("bash", ["-c", `printf '%s\\n' ${line}`], { cwd: project.dir });
      assert.ok(words.stdout.split("\n").includes("tsx@^4.0.0"), words.stdout);
    } finally {
      await project.remove();
    }
  });
});
