import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import {
  ENVELOPE,
  PARAMS,
} from "../../packages/livecmd/runtime/server/sdkAdapter/requestParams.ts";
import type { Catalog } from "../../packages/livecmd/runtime/model/catalog.ts";
import { root } from "../helpers/cli.ts";

/**
 * The server's validator compiles schemas without checking them against the meta-schema
 * (argumentValidator.ts: that check would cost every start more than its first answer), so the
 * schemas it is given are checked here: livecmd's own request params, and every catalog the
 * generator wrote in the repository (the example's, the examples', the golden files').
 */
const CATALOGS = [
  "generated/catalog.json",
  "examples/express/generated/catalog.json",
  "examples/hono/generated/catalog.json",
  ...["constraints", "ordering", "ordering-extra", "scalars", "tool-only"].map(
    (fixture) => `test/fixtures/${fixture}/expected/catalog.json`,
  ),
];

const metaSchema = new Ajv({ strict: false });

function problems(schema: unknown): string {
  return metaSchema.validateSchema(schema as object) ? "" : metaSchema.errorsText();
}

describe("every schema the server validates against is a valid JSON Schema", () => {
  it("livecmd's request params and the envelope every request shares", () => {
    for (const [method, schema] of [...Object.entries(PARAMS), ["envelope", ENVELOPE] as const])
      assert.equal(problems(schema), "", method);
  });
  for (const file of CATALOGS) {
    it(`${file}: each command's inputSchema and resultSchema`, () => {
      const catalog = JSON.parse(readFileSync(path.join(root, file), "utf8")) as Catalog;
      assert.ok(catalog.commands.length > 0);
      for (const entry of catalog.commands)
        for (const schema of [entry.inputSchema, entry.resultSchema])
          if (schema !== undefined) assert.equal(problems(schema), "", entry.name);
    });
  }
});
