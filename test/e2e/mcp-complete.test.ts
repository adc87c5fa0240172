import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { command, type Command } from "../../packages/livecmd/runtime/model/command.ts";
import type { Completer } from "../../packages/livecmd/runtime/model/app.ts";
import { RATE_LIMITED } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
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

/** A directory whose `who` template completes from the app, and whose completer records what it was given. */
function directoryApp(completer: Completer) {
  const person = command(
    { live: true, rateLimit: { max: 2, perMs: 60_000 } },
    (_ctx, team: string, who: string) => ({ team, who }),
  );
  const hidden = command({ live: true }, (_ctx, who: string) => ({ who }));
  const app = withFixtureGenerated(
    { name: "app", commands: { person, hidden }, agent: { grant: [person] } },
    [
      {
        name: "person",
        shape: { kind: "positional", names: ["team", "who"] },
        variables: [
          { name: "team", in: "path", schema: { type: "string", enum: ["core", "docs"] } },
          { name: "who", in: "path", schema: { type: "string" } },
        ],
      },
      {
        name: "hidden",
        shape: { kind: "positional", names: ["who"] },
        variables: [{ name: "who", in: "path", schema: { type: "string" } }],
      },
    ],
  );
  app.complete(person, "who", completer).complete(hidden, "who", completer);
  return { app, person };
}

describe("completers an app registers", () => {
  for (const protocol of PROTOCOLS) {
    it(`runs as the agent through the middleware, with the variables already filled in (${protocol})`, async () => {
      const seen: unknown[] = [];
      const { app } = directoryApp((ctx, prefix, { arguments: filled }) => {
        seen.push({ origin: ctx.origin, command: ctx.command, prefix, filled });
        return ["ada", "alan", "grace"].filter(
          (name) => name.startsWith(prefix) && filled.team === "core",
        );
      });
      const middleware: string[] = [];
      app.use(async (invocation, next) => {
        middleware.push(`${invocation.origin} ${invocation.command}`);
        return next();
      });
      const mcp = await testApp(app).mcp({ protocol });
      assert.deepEqual(
        await mcp.complete("app://person/{team}/{who}", "who", "a", { team: "core" }),
        { values: ["ada", "alan"], total: 2, hasMore: false },
      );
      assert.deepEqual(seen, [
        { origin: "agent", command: "person", prefix: "a", filled: { team: "core" } },
      ]);
      assert.deepEqual(middleware, ["agent person"]);
      await mcp.close();
    });

    it(`counts against the command's rate limit, like a read (${protocol})`, async () => {
      const { app } = directoryApp(() => ["ada"]);
      const mcp = await testApp(app).mcp({ protocol });
      await mcp.complete("app://person/{team}/{who}", "who", "");
      await mcp.read("app://person/core/ada");
      await protocolError(mcp.complete("app://person/{team}/{who}", "who", ""), RATE_LIMITED);
      await mcp.close();
    });

    it(`a completer that throws gives an empty completion, and its error reaches onerror (${protocol})`, async () => {
      const errors: Error[] = [];
      const { app } = directoryApp(() => {
        throw new Error("the directory is down");
      });
      const mcp = await testApp(app).mcp({ protocol, onerror: (error) => errors.push(error) });
      assert.deepEqual(await mcp.complete("app://person/{team}/{who}", "who", "a"), {
        values: [],
        total: 0,
        hasMore: false,
      });
      assert.match(
        errors.map((error) => error.message).join("\n"),
        /completing who of person for "a" failed: the directory is down/,
      );
      await mcp.close();
    });

    it(`an ungranted command's completer is as unknown as its template (${protocol})`, async () => {
      let ran = false;
      const { app } = directoryApp(() => {
        ran = true;
        return ["ada"];
      });
      const mcp = await testApp(app).mcp({ protocol });
      const error = await protocolError(mcp.complete("app://hidden/{who}", "who", "a"), -32602);
      assert.match(error.message, /^Unknown resource template "app:\/\/hidden\/\{who\}"/);
      assert.equal(ran, false);
      await mcp.close();
    });
  }

  it("cannot be registered for a variable the template does not have, nor for a command without a template", () => {
    const { app, person } = directoryApp(() => []);
    assert.throws(
      () => app.complete(person, "name", () => []),
      /app:\/\/person\/\{team\}\/\{who\} has no variable "name"; its variables are team, who/,
    );
    const tool = command({}, () => null);
    const withTool = withFixtureGenerated(
      { name: "app", commands: { tool }, agent: { grant: [tool] } },
      [{ name: "tool", shape: { kind: "positional", names: [] }, variables: [] }],
    );
    assert.throws(() => withTool.complete(tool, "x", () => []), /tool has no resource template/);
  });
});
