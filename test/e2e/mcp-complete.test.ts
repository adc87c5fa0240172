import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { command, type Command } from "../../runtime/command.ts";
import { testApp } from "../../runtime/testing/index.ts";
import { withFixtureGenerated } from "./fixtures/fixtureCatalog.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { createShopApp } from "./fixtures/shopApp.ts";

const INDEX = "app://customers_index{?direction,page,search,vip}";

const completions = [
  ["enum constants matching the prefix", INDEX, "direction", "d", ["desc"]],
  ["every enum constant for an empty prefix", INDEX, "direction", "", ["asc", "desc"]],
  ["nothing when no constant matches", INDEX, "direction", "x", []],
  ["true and false for a boolean", INDEX, "vip", "", ["true", "false"]],
  ["a boolean by prefix", INDEX, "vip", "f", ["false"]],
  ["nothing for a string", INDEX, "search", "Ad", []],
  ["nothing for an integer", "app://customers_show/{id}", "id", "1", []],
] as const;

/** A command whose enum has 250 constants, more than one completion may return. */
function manyChoicesApp() {
  const choices = Array.from({ length: 250 }, (_, i) => `c${String(i).padStart(3, "0")}`);
  const pick: Command = command({ live: true }, (_ctx, choice: string) => ({ choice }));
  return withFixtureGenerated({ name: "app", commands: { pick }, agent: { grant: [pick] } }, [
    {
      name: "pick",
      shape: { kind: "positional", names: ["choice"] },
      variables: [{ name: "choice", in: "path", schema: { type: "string", enum: choices } }],
    },
  ]);
}

for (const protocol of PROTOCOLS) {
  describe(`completion/complete on ${protocol}`, () => {
    for (const [what, template, variable, prefix, values] of completions) {
      it(`completes ${what}`, async () => {
        const mcp = await testApp(createShopApp().app).mcp({ protocol });
        assert.deepEqual(await mcp.complete(template, variable, prefix), {
          values,
          total: values.length,
          hasMore: false,
        });
        await mcp.close();
      });
    }

    it("returns at most 100 values, with the total and hasMore", async () => {
      const mcp = await testApp(manyChoicesApp()).mcp({ protocol });
      const completion = await mcp.complete("app://pick/{choice}", "choice", "c");
      assert.equal(completion.values.length, 100);
      assert.deepEqual(
        [completion.values[0], completion.values[99], completion.total, completion.hasMore],
        ["c000", "c099", 250, true],
      );
      const narrowed = await mcp.complete("app://pick/{choice}", "choice", "c24");
      assert.deepEqual(narrowed, {
        values: ["c240", "c241", "c242", "c243", "c244", "c245", "c246", "c247", "c248", "c249"],
        total: 10,
        hasMore: false,
      });
      await mcp.close();
    });

    const refused = [
      ["an unknown template", "app://customers_nowhere/{id}", "id", /^Unknown resource template/],
      [
        "an expanded URI instead of the template",
        "app://customers_show/1",
        "id",
        /^Unknown resource template/,
      ],
      [
        "the template of an ungranted command",
        "app://orders_between/{from}/{to}{?status}",
        "status",
        /^Unknown resource template/,
      ],
      [
        "an unknown variable",
        INDEX,
        "sort",
        /has no variable "sort"; its variables are: direction, page, search, vip/,
      ],
    ] as const;
    for (const [what, template, variable, message] of refused) {
      it(`refuses ${what} with -32602`, async () => {
        const mcp = await testApp(createShopApp().app).mcp({ protocol });
        const error = await protocolError(mcp.complete(template, variable, ""), -32602);
        assert.match(error.message, message);
        await mcp.close();
      });
    }
  });
}
