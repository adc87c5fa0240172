import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { InputError } from "../../packages/livecmd/cli/inputError.ts";
import { missingPackage, withPackage } from "../../packages/livecmd/cli/devPackages.ts";
import { importFromProject } from "../../packages/livecmd/cli/fromProject.ts";

// A package that is surely not installed, imported for real: Node's own error.
const importMissing = () => import("livecmd-no-such-package" as string);

test("on-demand packages: a failed import tells which package it could not find", async () => {
  assert.equal(
    missingPackage(await importMissing().catch((error: unknown) => error)),
    "livecmd-no-such-package",
  );
  assert.equal(
    missingPackage(new Error("Cannot find package 'x'")),
    undefined,
    "only Node's ERR_MODULE_NOT_FOUND counts",
  );
});

test("on-demand packages: the install command carries the range this livecmd works with", async () => {
  // Resolved for real from a project that has no node_modules.
  const project = await mkdtemp(path.join(tmpdir(), "livecmd-no-tsx-"));
  const tsxMissing = () => importFromProject("tsx/esm/api", project);
  await assert.rejects(withPackage("loading src/app.ts,", "tsx", tsxMissing), {
    message:
      "loading src/app.ts, needs tsx, which is not installed: npm install --save-dev tsx@^4.0.0",
  });
});

test("on-demand packages: an optional peer's install command carries livecmd's peer range", async () => {
  const clientMissing = () =>
    Promise.reject(
      Object.assign(
        new Error("Cannot find package '@modelcontextprotocol/client' imported from x"),
        { code: "ERR_MODULE_NOT_FOUND" },
      ),
    );
  await assert.rejects(
    withPackage("livecmd doctor", "@modelcontextprotocol/client", clientMissing),
    {
      message:
        "livecmd doctor needs @modelcontextprotocol/client, which is not installed: npm install --save-dev @modelcontextprotocol/client@^2.4.0",
    },
  );
});

test("on-demand packages: a missing package that is not the one needed is not disguised as it", async () => {
  await assert.rejects(
    withPackage("loading src/app.ts,", "tsx", importMissing),
    (error: unknown) =>
      missingPackage(error) === "livecmd-no-such-package" && !(error instanceof InputError),
  );
});
