import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommandEntry } from "../../packages/livecmd/runtime/model/catalog.ts";
import {
  exampleUri,
  templateDescription,
  templateExamples,
} from "../../packages/livecmd/runtime/model/templateExamples.ts";
import { descriptionExamples } from "../../packages/livecmd/runtime/text/descriptionExamples.ts";

/*
 * docs/mcp.md "Examples for hosts": an example written anywhere the docs say (the summary, a
 * @param's or a field's `e.g.`, an @example tag) reaches the template's published description,
 * where a host (and livecmd doctor) reads it.
 */

function entry(
  description: string,
  template: string,
  properties: Record<string, object>,
  shape: CommandEntry["arguments"] = { kind: "positional", names: Object.keys(properties) },
): CommandEntry {
  return {
    name: "x",
    live: true,
    confirm: false,
    granted: true,
    resource: null,
    template,
    reason: null,
    description,
    mimeType: "application/json",
    inputSchema: { type: "object", properties, required: [], additionalProperties: false },
    arguments: shape,
    resultSchema: {},
  };
}

const stay = {
  type: "object",
  properties: {
    first: { type: "string", examples: ["2026-03-01"] },
    nights: { type: "integer", description: "Nights, e.g. 2." },
  },
  required: [],
  additionalProperties: false,
};

const rules: { rule: string; entry: CommandEntry; listed: string }[] = [
  {
    rule: "an example the summary gives is all the listing needs",
    entry: entry("One note by id (e.g. 1).", "app://x/{id}", {
      id: { type: "integer", description: "The note's id, e.g. 7." },
    }),
    listed: "One note by id (e.g. 1).",
  },
  {
    rule: "a @param's e.g. follows the summary, named by its variable",
    entry: entry("One note by id.", "app://x/{id}", {
      id: { type: "integer", description: "The note's id, e.g. 1." },
    }),
    listed: "One note by id. `id`: e.g. 1.",
  },
  {
    rule: "an @example tag (the schema's examples) comes before the doc's e.g.",
    entry: entry("One note by id.", "app://x/{id}", {
      id: { type: "integer", description: "The note's id, e.g. 7.", examples: [1] },
    }),
    listed: "One note by id. `id`: e.g. 1.",
  },
  {
    rule: "a struct's fields are variables of their own names, in template order",
    entry: entry("A room's bookings", "app://x/{number}{?first,nights}", {
      number: { type: "integer", description: "The room's number, e.g. 101." },
      stay,
    }),
    listed: "A room's bookings. `number`: e.g. 101; `first`: e.g. 2026-03-01; `nights`: e.g. 2.",
  },
  {
    rule: "a command taking one struct has its fields as variables",
    entry: entry("Bookings.", "app://x{?first,nights}", stay.properties, { kind: "object" }),
    listed: "Bookings. `first`: e.g. 2026-03-01; `nights`: e.g. 2.",
  },
  {
    rule: "a value a URI would have to encode is quoted",
    entry: entry("A customer by name.", "app://x/{name}", {
      name: { type: "string", examples: ["Ada Lovelace"] },
    }),
    listed: 'A customer by name. `name`: e.g. "Ada Lovelace".',
  },
  {
    rule: "a variable with no example adds nothing",
    entry: entry("One note by id.", "app://x/{id}", { id: { type: "integer" } }),
    listed: "One note by id.",
  },
];

describe("a template's published description carries its variables' examples", () => {
  for (const { rule, entry: command, listed } of rules) {
    it(rule, () => {
      assert.equal(templateDescription(command), listed);
      // And doctor, reading only what is listed, finds each example that needs no quoting.
      const names = [...templateExamples(command).keys()];
      const plain = [...templateExamples(command)].filter(([, { value }]) => /^\S+$/.test(value));
      assert.deepEqual(
        [...descriptionExamples(listed, names)].sort(),
        plain.map(([name, { value }]) => [name, value]).sort(),
      );
    });
  }
});

describe("the URI livecmd inspect --cost reads a template by: its examples filled in", () => {
  const cases: { rule: string; entry: CommandEntry; read: ReturnType<typeof exampleUri> }[] = [
    {
      rule: "path and query variables with examples, each encoded as a URI writes it",
      entry: entry("A room's bookings.", "app://x/{number}{?first,nights}", {
        number: { type: "integer", examples: [101] },
        stay,
      }),
      read: { uri: "app://x/101?first=2026-03-01&nights=2", missing: [] },
    },
    {
      rule: "a query variable without an example is left out",
      entry: entry("Notes.", "app://x/{id}{?q}", {
        id: { type: "integer", examples: [1] },
        q: { type: "string" },
      }),
      read: { uri: "app://x/1", missing: [] },
    },
    {
      rule: "a value a URI must encode is percent-encoded",
      entry: entry("A customer by name.", "app://x/{name}", {
        name: { type: "string", examples: ["Ada Lovelace"] },
      }),
      read: { uri: "app://x/Ada%20Lovelace", missing: [] },
    },
    {
      rule: "a path variable without an example leaves no URI, and is named",
      entry: entry("One note by id.", "app://x/{id}", { id: { type: "integer" } }),
      read: { missing: ["id"] },
    },
  ];
  for (const { rule, entry: command, read } of cases)
    it(rule, () => assert.deepEqual(exampleUri(command), read));
});
