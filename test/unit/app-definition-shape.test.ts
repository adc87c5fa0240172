import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { command, defineApp } from "../../packages/livecmd/runtime/index.ts";

const notes_show = command({ live: true }, async (_ctx, id: number) => ({ id }));
/** defineApp as an app in JavaScript calls it: with what its types would refuse. */
const defineUntyped = defineApp as (definition: unknown) => unknown;

describe("defineApp given the wrong shape (JavaScript, or a cast) says which part and what it should be", () => {
  const cases: [rule: string, definition: unknown, message: RegExp][] = [
    ["no definition", undefined, /^livecmd: defineApp was given undefined, not an object;/],
    ["a definition that is a list", [], /^livecmd: defineApp was given an array, not an object;/],
    [
      "no name",
      { commands: { notes_show }, agent: { grant: [] } },
      /^livecmd: defineApp's name \(the URI scheme, "app" for app:\/\/\.\.\.\) is undefined, not a non-empty string;/,
    ],
    [
      "no commands",
      { name: "notes", agent: { grant: [] } },
      /^livecmd: defineApp's commands is undefined, not an object of commands \(spread the command modules/,
    ],
    [
      "no agent",
      { name: "notes", commands: { notes_show } },
      /^livecmd: defineApp's agent\.grant is undefined, not a list of the commands an agent may use \(an empty list grants none\);/,
    ],
    [
      "an agent without grant",
      { name: "notes", commands: { notes_show }, agent: {} },
      /^livecmd: defineApp's agent\.grant is undefined, not a list/,
    ],
    [
      "a grant that is one command, not a list",
      { name: "notes", commands: { notes_show }, agent: { grant: notes_show } },
      /^livecmd: defineApp's agent\.grant is an object, not a list/,
    ],
    [
      "a grant naming a command by its name",
      { name: "notes", commands: { notes_show }, agent: { grant: [notes_show, "notes_show"] } },
      /^livecmd: defineApp's agent\.grant\[1\] is the string "notes_show", not a command: grant takes the commands themselves/,
    ],
  ];
  for (const [rule, definition, message] of cases)
    test(rule, () => {
      assert.throws(
        () => defineUntyped(definition),
        (error: Error) => {
          assert.ok(error instanceof TypeError, `a TypeError, not ${error.constructor.name}`);
          assert.match(error.message, message);
          assert.match(
            error.message,
            /; defineApp\(\{ name, commands: \{ \.\.\. \}, agent: \{ grant: \[\.\.\.\] \} \}\)$/,
          );
          return true;
        },
      );
    });

  test("the right shape defines the app", () => {
    assert.doesNotThrow(() =>
      defineApp({ name: "notes", commands: { notes_show }, agent: { grant: [notes_show] } }),
    );
  });
});
