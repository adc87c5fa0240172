import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { countedExampleApp, PROTOCOLS } from "./support/exampleApp.ts";
import { GUESSED_URIS } from "./support/guesses.ts";
import { WireErrors } from "./support/wire.ts";

/** Template strings an agent might guess for completion, for the same commands. */
const GUESSED_TEMPLATES: [why: string, template: string][] = [
  ["ungranted", "app://customers_export"],
  ["ungranted", "app://customers_export{?page}"],
  ["confirm-only", "app://customers_delete/{id}"],
  ["confirm-only", "app://customers_delete{?id}"],
  ["not live", "app://customers_rename/{id}/{name}"],
  ["not live", "app://customers_rename{?id,name}"],
  ["tool only", "app://customers_tagged{?tags}"],
  ["unknown", "app://customers_nowhere/{id}"],
  ["expanded, not a template", "app://customers_show/1"],
];

const UNKNOWN_URI = "app://does_not_exist";
const UNKNOWN_TEMPLATE = "app://does_not_exist/{id}";

for (const protocol of PROTOCOLS) {
  describe(`guessing URIs reaches nothing (${protocol})`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    let wire: WireErrors;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol });
      wire = new WireErrors(mcp);
    });
    after(() => mcp.close());

    it("resources/read: every guess gets the bytes of a command that does not exist, and runs nothing", async () => {
      const expected = await wire.of(mcp.read(UNKNOWN_URI), UNKNOWN_URI);
      assert.equal(
        expected,
        '{"code":-32602,"message":"Resource not found: <name>","data":{"uri":"<name>"}}',
      );
      for (const [why, uri] of GUESSED_URIS) {
        assert.equal(await wire.of(mcp.read(uri), uri), expected, `${why}: ${uri}`);
      }
      assert.deepEqual(counted.runs, []);
    });

    it("completion/complete: every guessed template gets the bytes of a template that does not exist", async () => {
      const expected = await wire.of(mcp.complete(UNKNOWN_TEMPLATE, "id", ""), UNKNOWN_TEMPLATE);
      assert.match(
        expected,
        /^\{"code":-32602,"message":"Unknown resource template \\"<name>\\": [^"]+","data":\{"ref":\{"type":"ref\/resource","uri":"<name>"\}\}\}$/,
      );
      for (const [why, template] of GUESSED_TEMPLATES) {
        for (const variable of ["id", "name", "page"]) {
          assert.equal(
            await wire.of(mcp.complete(template, variable, ""), template),
            expected,
            `${why}: ${template} ${variable}`,
          );
        }
      }
    });

    it("tools/call: an ungranted command gets the bytes of a tool that does not exist, and does not run", async () => {
      const expected = await wire.of(mcp.call("does_not_exist", {}), "does_not_exist");
      assert.equal(
        expected,
        '{"code":-32602,"message":"Unknown tool: <name>","data":{"name":"<name>"}}',
      );
      assert.equal(await wire.of(mcp.call("customers_export", {}), "customers_export"), expected);
      assert.deepEqual(counted.runs, []);
    });
  });

  describe(`a command revoked at runtime is as unreachable as one that never existed (${protocol})`, () => {
    it("read, complete and call of customers_show answer exactly as for an unknown command", async () => {
      const counted = countedExampleApp();
      const mcp = await testApp(counted.app).mcp({ protocol });
      const wire = new WireErrors(mcp);
      counted.app.revoke(counted.app.commands.get("customers_show")!);
      assert.equal(
        await wire.of(mcp.read("app://customers_show/1"), "app://customers_show/1"),
        await wire.of(mcp.read(UNKNOWN_URI), UNKNOWN_URI),
      );
      assert.equal(
        await wire.of(mcp.read("app://customers_show/x"), "app://customers_show/x"),
        await wire.of(mcp.read(UNKNOWN_URI), UNKNOWN_URI),
        "not even a parse error tells it exists",
      );
      assert.equal(
        await wire.of(
          mcp.complete("app://customers_show/{id}", "id", ""),
          "app://customers_show/{id}",
        ),
        await wire.of(mcp.complete(UNKNOWN_TEMPLATE, "id", ""), UNKNOWN_TEMPLATE),
      );
      assert.equal(
        await wire.of(mcp.call("customers_show", { id: 1 }), "customers_show"),
        await wire.of(mcp.call("does_not_exist", {}), "does_not_exist"),
      );
      assert.deepEqual(counted.runs, []);
      await mcp.close();
    });
  });
}
