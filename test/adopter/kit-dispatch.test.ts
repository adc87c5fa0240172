import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { root, run } from "../helpers/cli.ts";
import { projectEnv } from "../helpers/packed.ts";

const { version: VERSION } = JSON.parse(
  await readFile(path.join(root, "packages/livecmd/package.json"), "utf8"),
) as { version: string };

/**
 * A project with livecmd linked from this repository, and `kit`: none, or a livecmd-kit of
 * that version (its package.json only: a kit of another version is never loaded), and `files`.
 */
async function projectWith(kit: string | undefined, files: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), "livecmd-kit-dispatch-"));
  await mkdir(path.join(dir, "node_modules"));
  await symlink(path.join(root, "packages/livecmd"), path.join(dir, "node_modules/livecmd"), "dir");
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "desk", type: "module" }));
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
  if (kit !== undefined) {
    const manifest = JSON.parse(
      await readFile(path.join(root, "packages/livecmd-kit/package.json"), "utf8"),
    ) as Record<string, unknown>;
    await mkdir(path.join(dir, "node_modules/livecmd-kit"));
    await writeFile(
      path.join(dir, "node_modules/livecmd-kit/package.json"),
      JSON.stringify({ ...manifest, version: kit }),
    );
  }
  const livecmd = (...args: string[]) =>
    run(process.execPath, [path.join(dir, "node_modules/livecmd/bin/livecmd.js"), ...args], {
      cwd: dir,
      env: projectEnv(),
    });
  return { livecmd, remove: () => rm(dir, { recursive: true, force: true }) };
}

describe("livecmd runs livecmd-kit's commands only at its own version, and says in one line what to install", () => {
  const cases: {
    rule: string;
    kit: string | undefined;
    files: Record<string, string>;
    says: string;
    help: string;
  }[] = [
    {
      rule: "no kit, an npm project",
      kit: undefined,
      files: {},
      says: `livecmd: livecmd codegen is in livecmd-kit, livecmd's dev tool, which is not installed: npm install --save-dev livecmd-kit@${VERSION}\n`,
      help: "(livecmd-kit, not installed here)",
    },
    {
      rule: "no kit, a pnpm project (pnpm-lock.yaml)",
      kit: undefined,
      files: { "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" },
      says: `livecmd: livecmd codegen is in livecmd-kit, livecmd's dev tool, which is not installed: pnpm add --save-dev livecmd-kit@${VERSION}\n`,
      help: "(livecmd-kit, not installed here)",
    },
    {
      rule: "a kit of another version",
      kit: "9.9.9",
      files: {},
      says: `livecmd: livecmd codegen is in livecmd-kit 9.9.9, which does not match livecmd ${VERSION} (their versions move together): npm install --save-dev livecmd-kit@${VERSION}\n`,
      help: `(livecmd-kit, 9.9.9 here, livecmd is ${VERSION})`,
    },
  ];
  for (const { rule, kit, files, says, help } of cases) {
    it(`${rule}: codegen exits 2 with one line, and --help says why`, async () => {
      const project = await projectWith(kit, files);
      try {
        const codegen = await project.livecmd("codegen", "--app", "src/app.ts");
        assert.equal(codegen.code, 2, codegen.stderr);
        assert.equal(codegen.stderr, says);
        const usage = await project.livecmd("--help");
        assert.equal(usage.code, 0, usage.stderr);
        assert.ok(usage.stdout.includes(help), usage.stdout);
      } finally {
        await project.remove();
      }
    });
  }
});
