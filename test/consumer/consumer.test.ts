import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { build } from "esbuild";
import { root, run } from "../helpers/cli.ts";
import { packLivecmd, projectEnv, type PackedLivecmd } from "../helpers/packed.ts";

/**
 * livecmd as an adopter gets it: the packed tarball installed into a fresh project outside the
 * repository (`fixture/`: app "desk", commands of several shapes, a strict tsconfig with
 * `skipLibCheck: false`), then that project's codegen, its own tsc, its compiled app served on
 * plain Node (tsx is not even installed) and read and watched through the SDK client, and its
 * URI builders bundled for the browser.
 */

/** What the fixture installs besides livecmd's two packages, at the versions this repository pins (npm's cache has them). */
const RUNTIME_DEPENDENCIES = ["better-sqlite3"];
const DEV_DEPENDENCIES = ["typescript", "@types/node", "@types/better-sqlite3"];

/** livecmd's version, which both packages carry. */
const { version: VERSION } = JSON.parse(
  await readFile(path.join(root, "packages/livecmd/package.json"), "utf8"),
) as { version: string };

describe(
  "the packed package in a fresh project outside the repository",
  { timeout: 600_000 },
  () => {
    let scratch: string;
    let project: string;
    let tarballs: PackedLivecmd;
    const inProject = (command: string, args: string[], env?: NodeJS.ProcessEnv) =>
      run(command, args, { cwd: project, env: projectEnv(env), timeoutMs: 300_000 });
    const livecmd = (...args: string[]) =>
      inProject(process.execPath, ["node_modules/livecmd/bin/livecmd.js", ...args]);

    before(async () => {
      scratch = await mkdtemp(path.join(tmpdir(), "livecmd-consumer-"));
      project = path.join(scratch, "helpdesk");
      tarballs = await packLivecmd(scratch);
      await cp(path.join(import.meta.dirname, "fixture"), project, { recursive: true });
      const pinned = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"))
        .devDependencies as Record<string, string>;
      const specs = (names: string[]) => names.map((name) => `${name}@${pinned[name]}`);
      for (const args of [
        ["--save", tarballs.livecmd, ...specs(RUNTIME_DEPENDENCIES)],
        ["--save-dev", tarballs.kit, ...specs(DEV_DEPENDENCIES)],
      ]) {
        const installed = await inProject("npm", [
          "install",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          ...args,
        ]);
        assert.equal(installed.code, 0, installed.stdout + installed.stderr);
      }
    });

    after(() => rm(scratch, { recursive: true, force: true }));

    /** Type-checks `tsconfig` (a browser one: DOM, no Node types), bundles `entry` for the browser, asserts it uses no Node built-in and returns the bundle. */
    async function browserBundle(tsconfig: string, entry: string): Promise<string> {
      const checked = await inProject(process.execPath, [
        "node_modules/typescript/bin/tsc",
        "-p",
        tsconfig,
      ]);
      assert.equal(checked.code, 0, checked.stdout + checked.stderr);
      const bundle = await build({
        entryPoints: [path.join(project, entry)],
        bundle: true,
        platform: "browser",
        format: "esm",
        write: false,
        logLevel: "silent",
      });
      const text = bundle.outputFiles[0]!.text;
      assert.doesNotMatch(text, /\bfrom\s*"node:|require\(/);
      return text;
    }

    const shipped = [
      {
        pkg: "livecmd",
        has: [
          "package/bin/livecmd.js",
          "package/dist/cli/main.js",
          "package/dist/runtime/index.d.ts",
          "package/dist/runtime/index.d.ts.map",
          "package/runtime/index.ts",
          // The live views' runtime, bundled by the build: a view page inlines it.
          "package/dist/view/viewRuntime.js",
        ],
      },
      {
        pkg: "kit",
        has: [
          "package/dist/cli/index.js",
          "package/dist/generator/pipeline.js",
          "package/generator/pipeline.ts",
        ],
      },
    ] as const;
    for (const { pkg, has } of shipped) {
      it(`the ${pkg} tarball ships its compiled code, declarations and sources, no tests or fixtures, and no install script`, async () => {
        const tarball = tarballs[pkg];
        const listed = await run("tar", ["-tzf", tarball], { cwd: scratch });
        const files = listed.stdout.split("\n").filter(Boolean);
        for (const file of has) assert.ok(files.includes(file), `${file} is in the tarball`);
        assert.deepEqual(
          files.filter((file) => /^package\/(test|bench|example|generated)\//.test(file)),
          [],
        );
        const manifest = await run("tar", ["-xzOf", tarball, "package/package.json"], {
          cwd: scratch,
        });
        const { scripts = {} } = JSON.parse(manifest.stdout) as {
          scripts?: Record<string, string>;
        };
        assert.deepEqual(
          Object.keys(scripts).filter((name) => /^(pre|post)?install$|^prepare$/.test(name)),
          [],
        );
      });
    }

    it("nothing below can use tsx: it is not installed", () => {
      assert.ok(!existsSync(path.join(project, "node_modules/tsx")));
    });

    it("a production install of the project (npm ci --omit=dev) holds livecmd's runtime alone: no generator packages, no tsx", async () => {
      const production = path.join(scratch, "production");
      await mkdir(production);
      for (const file of ["package.json", "package-lock.json"])
        await cp(path.join(project, file), path.join(production, file));
      const installed = await run(
        "npm",
        ["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"],
        { cwd: production, env: projectEnv(), timeoutMs: 300_000 },
      );
      assert.equal(installed.code, 0, installed.stderr);
      const present = (name: string) =>
        existsSync(path.join(production, "node_modules", name, "package.json"));
      assert.ok(
        present("livecmd") && present("@modelcontextprotocol/server") && present("better-sqlite3"),
      );
      for (const generatorOnly of [
        "livecmd-kit",
        "ts-morph",
        "prettier",
        "diff",
        "tsx",
        "typescript",
      ])
        assert.ok(!present(generatorOnly), `${generatorOnly} is not installed`);

      // codegen there says, in one line, which package holds it.
      await cp(path.join(project, "src"), path.join(production, "src"), { recursive: true });
      const codegen = await run(
        process.execPath,
        [
          "node_modules/livecmd/bin/livecmd.js",
          "codegen",
          "--app",
          "src/app.ts",
          "--out",
          "src/generated",
        ],
        { cwd: production, env: projectEnv() },
      );
      assert.equal(codegen.code, 2, codegen.stdout);
      assert.equal(
        codegen.stderr,
        `livecmd: livecmd codegen is in livecmd-kit, livecmd's dev tool, which is not installed: npm install --save-dev livecmd-kit@${VERSION}\n`,
      );
    });

    it("livecmd doctor, without the optional SDK client, says how to install it", async () => {
      assert.ok(!existsSync(path.join(project, "node_modules/@modelcontextprotocol/client")));
      const doctor = await livecmd("doctor", "http://127.0.0.1:3000/mcp");
      assert.equal(doctor.code, 2);
      assert.equal(
        doctor.stderr,
        "livecmd: livecmd doctor needs @modelcontextprotocol/client, which is not installed: npm install --save-dev @modelcontextprotocol/client@^2.4.0\n",
      );
    });

    it("codegen writes the project's generated files, and --check finds them current", async () => {
      const generated = await livecmd("codegen", "--app", "src/app.ts", "--out", "src/generated");
      assert.equal(generated.code, 0, generated.stdout + generated.stderr);
      assert.match(generated.stdout, /src\/generated\/: 7 written/);
      const checked = await livecmd(
        "codegen",
        "--app",
        "src/app.ts",
        "--out",
        "src/generated",
        "--check",
      );
      assert.equal(checked.code, 0, checked.stdout + checked.stderr);
      const catalog = JSON.parse(
        await readFile(path.join(project, "src/generated/catalog.json"), "utf8"),
      );
      assert.deepEqual(
        catalog.commands.flatMap((entry: { template: string | null }) => entry.template ?? []),
        [
          "desk://tickets_assigned/{assignee}{?status}",
          "desk://tickets_index{?include_closed,page,search,status}",
          "desk://tickets_show/{id}",
        ],
      );
      const tagged = catalog.commands.find(
        (entry: { name: string }) => entry.name === "tickets_tagged",
      );
      assert.match(tagged.reason, /argument "tags" \(string\[\]\) is a list/);
    });

    it("the generated files import only livecmd/uri and each other", async () => {
      for (const file of ["templates.ts", "uris.ts"]) {
        const imports = [
          ...(await readFile(path.join(project, "src/generated", file), "utf8")).matchAll(
            /from "([^"]+)"/g,
          ),
        ].map((match) => match[1]);
        assert.deepEqual(
          imports.filter(
            (specifier) => specifier !== "livecmd/uri" && !specifier!.startsWith("./"),
          ),
          [],
          file,
        );
      }
    });

    it("the project's own strict tsc (skipLibCheck: false, exactOptionalPropertyTypes) compiles the app, livecmd's types and the generated files", async () => {
      const compiled = await inProject(process.execPath, [
        "node_modules/typescript/bin/tsc",
        "-p",
        "tsconfig.json",
      ]);
      assert.equal(compiled.code, 0, compiled.stdout + compiled.stderr);
      assert.ok(
        existsSync(path.join(project, "dist/app.js")) &&
          existsSync(path.join(project, "dist/generated/catalog.json")),
      );
    });

    it("uris.ts type-checks without Node's types, with an Int that refuses 1.5, and bundles for the browser with no Node built-ins", async () => {
      const text = await browserBundle("tsconfig.browser.json", "src/links.ts");
      assert.match(text, /desk:\/\/tickets_show\//);
    });

    it("livecmd/client, once the SDK client is installed, type-checks for the browser with typed results and bundles with no Node built-ins", async () => {
      // Installed here, after the tests that want the project without it (doctor).
      const pinned = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"))
        .devDependencies as Record<string, string>;
      const installed = await inProject("npm", [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--save",
        `@modelcontextprotocol/client@${pinned["@modelcontextprotocol/client"]}`,
      ]);
      assert.equal(installed.code, 0, installed.stdout + installed.stderr);
      const text = await browserBundle("tsconfig.client.json", "browser/live.ts");
      assert.match(text, /resources\/updated/);
    });

    it("serves the compiled app on plain Node over HTTP: an agent reads desk://tickets_show/1 and hears when a write changes it", async () => {
      const server = await serveHttp(project);
      const client = new Client(
        { name: "consumer-test", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      try {
        await client.connect(new StreamableHTTPClientTransport(server.url));
        assert.deepEqual(client.getServerVersion(), { name: "desk", version: "3.2.1" });
        const read = await client.readResource({ uri: "desk://tickets_show/1" });
        assert.equal(JSON.parse((read.contents[0] as { text: string }).text).status, "open");
        const updated = new Promise<string>((resolve) =>
          client.setNotificationHandler("notifications/resources/updated", (note) =>
            resolve(note.params.uri),
          ),
        );
        const listen = await client.listen({
          resourceSubscriptions: ["desk://tickets_show/1", "desk://tickets_show/nope"],
        });
        assert.deepEqual(listen.honoredFilter.resourceSubscriptions, ["desk://tickets_show/1"]);
        const closed = await client.callTool({ name: "tickets_close", arguments: { id: 1 } });
        assert.equal(closed.isError, undefined, JSON.stringify(closed));
        assert.equal(await updated, "desk://tickets_show/1");
        await listen.close();
      } finally {
        await client.close();
        server.child.kill();
      }
    });

    it("serves the compiled app over stdio, the way a desktop host starts it", async () => {
      const client = new Client({ name: "consumer-test", version: "1.0.0" });
      const command = {
        command: process.execPath,
        args: ["node_modules/livecmd/bin/livecmd.js", "serve", "--app", "dist/app.js"],
        cwd: project,
      };
      await client.connect(
        new StdioClientTransport({
          ...command,
          env: projectEnv({ DESK_DB: path.join(project, "desk.sqlite") }) as Record<string, string>,
          stderr: "pipe",
        }),
      );
      try {
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.equal(resourceTemplates.length, 3);
        // dist/ holds no generated folder: the skill is the one codegen wrote beside src/app.ts.
        const { resources } = await client.listResources();
        assert.ok(
          resources.some(({ uri }) => /^skill:\/\/[^/]+\/SKILL\.md$/.test(uri)),
          JSON.stringify(resources.map(({ uri }) => uri)),
        );
        const read = await client.readResource({
          uri: "desk://tickets_assigned/linus?status=pending",
        });
        assert.equal(
          JSON.parse((read.contents[0] as { text: string }).text)[0].title,
          "VPN drops hourly",
        );
      } finally {
        await client.close();
      }
    });

    it("serving the TypeScript source with no tsx installed names what to install, or to serve the compiled app", async () => {
      const served = await livecmd("serve", "--app", "src/app.ts");
      assert.equal(served.code, 2);
      assert.equal(
        served.stderr,
        "livecmd: loading src/app.ts, which is TypeScript, needs tsx, which is not installed: npm install --save-dev tsx@^4.0.0; or compile it and pass the .js (e.g. --app dist/app.js)\n",
      );
    });
  },
);

/** `livecmd serve --http 0` on the compiled app, as a child on plain Node; resolves with its URL. */
async function serveHttp(project: string): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ["node_modules/livecmd/bin/livecmd.js", "serve", "--app", "dist/app.js", "--http", "0"],
    {
      cwd: project,
      env: projectEnv({ DESK_DB: path.join(project, "desk.sqlite") }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk;
      const match = /serving app "desk" at (\S+)/.exec(output);
      if (match) resolve({ url: new URL(match[1]!), child });
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk));
    child.on("exit", (code) => reject(new Error(`livecmd serve exited ${code}:\n${output}`)));
  });
}
