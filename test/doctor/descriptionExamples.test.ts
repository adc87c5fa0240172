import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { descriptionExamples } from "../../packages/livecmd/runtime/text/descriptionExamples.ts";

/** Where `livecmd doctor` finds a value to try for a template variable when completion has none. */
describe("values from a template's description", () => {
  const cases: [
    rule: string,
    description: string,
    variables: string[],
    values: [string, string][],
  ][] = [
    ["an example of the only variable", "One customer by id, e.g. 1", ["id"], [["id", "1"]]],
    [
      "the first of several alternatives",
      "A resource by number, e.g. 1, 2 or 3.",
      ["n"],
      [["n", "1"]],
    ],
    [
      '"for example", quotes stripped',
      "A policy, for example: `on-call`.",
      ["name"],
      [["name", "on-call"]],
    ],
    [
      "examples go to the variables their clause names, in order",
      "The orders placed from `from` to `to`, written `YYYY-MM-DD` (e.g. 2025-01-01 and 2025-01-31), optionally with `status`.",
      ["from", "to", "status"],
      [
        ["from", "2025-01-01"],
        ["to", "2025-01-31"],
      ],
    ],
    [
      "a plural names its variable",
      "Policy names are lowercase with hyphens, e.g. on-call-escalation.",
      ["team", "name"],
      [["name", "on-call-escalation"]],
    ],
    [
      "an example in a clause that names no variable fits no one among two",
      "A document owned by one team. Team slugs come from the org directory; they are short, e.g. platform-eng.",
      ["team", "name"],
      [],
    ],
    [
      "prose after the marker is no example",
      "Any customer, such as the one you just created.",
      ["id"],
      [],
    ],
    ["no example at all", "One customer by id.", ["id"], []],
    [
      "only the first example a variable gets counts",
      "Sorted by `sort`, e.g. name; or by `sort` again, e.g. balance.",
      ["sort"],
      [["sort", "name"]],
    ],
  ];
  for (const [rule, description, variables, values] of cases) {
    it(rule, () => assert.deepEqual([...descriptionExamples(description, variables)], values));
  }

  it("leaves variables that completion already valued to completion", () => {
    assert.deepEqual(
      [...descriptionExamples("An order, e.g. 12", ["id", "status"], new Set(["status"]))],
      [["id", "12"]],
    );
  });
});
