import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "../../cli/inputError.ts";
import { installSpecs, missingPackage, withOptionalPeers } from "../../cli/optionalPeers.ts";

// A package that is surely not installed, imported for real: Node's own "not found" error.
const importMissing = () => import("livecmd-no-such-package" as string);

test("optional peers: a missing one becomes the install command, at the ranges livecmd's package.json declares", async () => {
  const error = await withOptionalPeers("livecmd codegen", ["livecmd-no-such-package"], importMissing).catch((caught: unknown) => caught);
  assert.ok(error instanceof InputError);
  assert.equal(error.message, "livecmd codegen needs livecmd-no-such-package, which is not installed: npm install --save-dev livecmd-no-such-package@latest");
  assert.equal(installSpecs(["ts-morph", "diff"]), 'ts-morph@^28.0.0 diff@"^8.0.0 || ^9.0.0"');
});

test("optional peers: a package that is not one of them is not disguised as one", async () => {
  await assert.rejects(withOptionalPeers("livecmd codegen", ["ts-morph"], importMissing), (error: unknown) => missingPackage(error) === "livecmd-no-such-package" && !(error instanceof InputError));
});
