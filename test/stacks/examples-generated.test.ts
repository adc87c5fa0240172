import assert from "node:assert/strict";
import { test } from "node:test";
import { livecmd } from "../helpers/cli.ts";

// The examples' generated files are checked in, as an app's would be: each is what codegen writes now.
for (const example of ["drizzle", "kysely", "prisma"])
  test(`examples/${example}/generated/ is what codegen writes from examples/${example}/app.ts`, async () => {
    const { code, stdout, stderr } = await livecmd([
      "codegen",
      "--app",
      `examples/${example}/app.ts`,
      "--out",
      `examples/${example}/generated`,
      "--check",
    ]);
    assert.equal(code, 0, stdout + stderr);
  });
