import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as customers from "../../example/commands/customers.ts";
import catalog from "../../generated/catalog.json" with { type: "json" };
import { templates } from "../../generated/templates.ts";
import { command, defineApp } from "../../packages/livecmd/runtime/index.ts";
import { mcpHandler, StaleCatalogError } from "../../packages/livecmd/runtime/server/index.ts";

/** The example's customers, with a command granted since catalog.json was written. */
const grown = defineApp({
  name: "app",
  commands: { ...customers, customers_count: command({ live: true }, async () => 0) },
  agent: { grant: [customers.customers_show] },
  generated: { catalog, templates },
});

describe("a catalog.json older than the app", () => {
  it("refuses a mounted endpoint in words it can act on: the option that serves it as it is, beside the CLI's flag", () => {
    assert.throws(
      () => mcpHandler(grown),
      (error: Error) =>
        error instanceof StaleCatalogError &&
        /customers_count/.test(error.message) &&
        error.message.includes(
          "(or serve the catalog as it is: `allowStale: true` in the serving options, `--allow-stale` for livecmd serve)",
        ),
    );
  });

  it("is served as it is with allowStale: true", () => {
    assert.doesNotThrow(() => mcpHandler(grown, { allowStale: true, onerror: () => {} }));
  });
});
