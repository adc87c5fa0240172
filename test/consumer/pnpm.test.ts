import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { root, run } from "../helpers/cli.ts";
import { packLivecmd, projectEnv } from "../helpers/packed.ts";
import { inspectorCommand, nodeLine } from "../helpers/peerTools.ts";

/**
 * livecmd as a pnpm user gets it, on Node 22: the two packed tarballs added to a fresh project
 * with pnpm's strict layout (a package sees only what it declares, so livecmd must find the
 * project's tsx and livecmd-kit from the project), `livecmd init` installing with pnpm and
 * opening SQLite through node:sqlite (nothing native to build), the commands it prints run as
 * printed with no terminal, the project's own strict tsc, and the compiled app served on plain
 * Node and read through the SDK client.
 */
describe("the two packages under pnpm, on Node 22 with node:sqlite", { timeout: 900_000 }, () => {
  let scratch: string;
  let project: string;
  let node22: string;
  let env: NodeJS.ProcessEnv;
  let init: { code: number; stdout: string; stderr: string };
  const pnpm = path.join(root, "node_modules/pnpm/bin/pnpm.cjs");
  const inProject = (command: string, args: string[]) =>
    run(command, args, { cwd: project, env, timeoutMs: 400_000 });

  before(async () => {
    const nodeBin = await nodeLine(22);
    node22 = path.join(nodeBin, "node");
    scratch = await mkdtemp(path.join(tmpdir(), "livecmd-pnpm-"));
    // pnpm on PATH, as a pnpm user has it (this repository's pinned copy), run by Node 22.
    const bin = path.join(scratch, "bin");
    await mkdir(bin);
    await writeFile(path.join(bin, "pnpm"), `#!/bin/sh\nexec node ${pnpm} "$@"\n`, { mode: 0o755 });
    env = projectEnv({ PATH: [bin, nodeBin, process.env.PATH].join(path.delimiter) });
    project = path.join(scratch, "field-notes");
    await mkdir(project);
    await writeFile(
      path.join(project, "package.json"),
      `${JSON.stringify({ name: "field-notes", version: "1.0.0", private: true }, null, 2)}\n`,
    );
    const tarballs = await packLivecmd(scratch);
    for (const args of [
      ["add", tarballs.livecmd],
      ["add", "--save-dev", tarballs.kit],
    ]) {
      const added = await inProject("pnpm", args);
      assert.equal(added.code, 0, added.stdout + added.stderr);
    }
    init = await inProject("pnpm", ["exec", "livecmd", "init"]);
  });

  after(() => rm(scratch, { recursive: true, force: true }));

  it("init installs with pnpm, opens SQLite through node:sqlite and installs nothing native", async () => {
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.match(init.stdout, /^wrote src\/app\.ts \(SQLite through node:sqlite\)$/m);
    assert.match(init.stdout, /^running pnpm add --save-dev tsx@\^4\.0\.0 /m);
    assert.match(init.stdout, /^src\/generated\/: 5 written/m);
    assert.ok(existsSync(path.join(project, "pnpm-lock.yaml")));
    assert.ok(!existsSync(path.join(project, "package-lock.json")), "npm was not run");
    const store = readdirSync(path.join(project, "node_modules/.pnpm"));
    assert.deepEqual(
      store.filter((entry) => entry.startsWith("better-sqlite3")),
      [],
    );
  });

  it("the commands init prints run as printed (the Inspector from this repository), through the project's tsx", async () => {
    const printed = init.stdout
      .split("\n")
      .filter((line) => line.startsWith("  npx -y @modelcontextprotocol/inspector@"));
    assert.equal(printed.length, 2, init.stdout);
    const [, inspectorCli] = inspectorCommand();
    const [listing, reading] = await Promise.all(
      printed.map((line) =>
        inProject(node22, [inspectorCli, ...line.trim().split(/\s+/).slice(3)]),
      ),
    );
    assert.equal(listing!.code, 0, listing!.stderr);
    assert.match(listing!.stdout, /"uriTemplate": "field-notes:\/\/notes_show\/\{id\}"/);
    assert.equal(reading!.code, 0, reading!.stderr);
    assert.match(reading!.stdout, /Ask your agent to keep an eye on this note\./);
  });

  it("the project's strict tsc compiles it, and plain Node serves the compiled app over stdio", async () => {
    const compiled = await inProject("pnpm", ["exec", "tsc"]);
    assert.equal(compiled.code, 0, compiled.stdout + compiled.stderr);
    const client = new Client({ name: "pnpm-consumer", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: node22,
        args: ["node_modules/livecmd/bin/livecmd.js", "serve", "--app", "dist/app.js"],
        cwd: project,
        env: { ...env, NOTES_DB: path.join(project, "notes.sqlite") } as Record<string, string>,
        stderr: "pipe",
      }),
    );
    try {
      const read = await client.readResource({ uri: "field-notes://notes_show/1" });
      const note = JSON.parse((read.contents[0] as { text: string }).text) as { title: string };
      assert.equal(note.title, "Welcome");
    } finally {
      await client.close();
    }
    const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
    assert.equal(manifest.dependencies["better-sqlite3"], undefined);
  });
});
