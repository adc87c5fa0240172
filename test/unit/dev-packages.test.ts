import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "../../cli/inputError.ts";
import { installSpecs, missingPackage, withDevPackages } from "../../cli/devPackages.ts";

// A package that is surely not installed, imported for real: Node's own "not found" error.
const importMissing = () => import("livecmd-no-such-package" as string);

test("dev packages: a failed import tells which package it could not find", async () => {
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

test("dev packages: the install command carries the ranges this livecmd works with, quoted where a shell needs it", () => {
  assert.equal(
    installSpecs(["ts-morph", "diff", "tsx"]),
    'ts-morph@^28.0.0 diff@"^8.0.0 || ^9.0.0" tsx@^4.0.0',
  );
});

test("dev packages: an optional peer's install command carries livecmd's peer range", () => {
  assert.equal(
    installSpecs(["@modelcontextprotocol/client"]),
    "@modelcontextprotocol/client@^2.4.0",
  );
});

test("dev packages: a missing package that is not one of them is not disguised as one", async () => {
  await assert.rejects(
    withDevPackages("livecmd codegen", ["ts-morph"], importMissing),
    (error: unknown) =>
      missingPackage(error) === "livecmd-no-such-package" && !(error instanceof InputError),
  );
});
