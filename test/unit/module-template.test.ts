import assert from "node:assert/strict";
import { test } from "node:test";
import { moduleTemplateOf } from "../../packages/livecmd-kit/generator/render/moduleTemplate.ts";

const placed: {
  rule: string;
  source: string;
  name: string;
  placement: { indent: number; after: string };
}[] = [
  {
    rule: "a placeholder alone on its line sits at its indent, with nothing after it",
    source: "{{#if x}}\n    {{unit}}\n{{/if}}\n",
    name: "unit",
    placement: { indent: 4, after: "" },
  },
  {
    rule: "what follows a placeholder on its line counts towards its width",
    source: "  {{property}},\n",
    name: "property",
    placement: { indent: 2, after: "," },
  },
  {
    rule: "a triple-stash placeholder is one too",
    source: "{{#each lines}}\n        {{{line}}}\n{{/each}}\n",
    name: "line",
    placement: { indent: 8, after: "" },
  },
];
for (const { rule, source, name, placement } of placed) {
  test(`module template: ${rule}`, () => {
    const { indent, after } = moduleTemplateOf("t.hbs", source).placement(name);
    assert.deepEqual({ indent, after }, placement);
  });
}

const refused: { rule: string; source: string; error: RegExp }[] = [
  {
    rule: "a placeholder with text before it on its line",
    source: "const x = {{value}};\n",
    error: /templates\/t\.hbs:1: \{\{value\}\} has text before it on its line/,
  },
  {
    rule: "a second placeholder on a line",
    source: "{{a}} {{b}}\n",
    error: /\{\{b\}\} has text before it/,
  },
  {
    rule: "one name in two places",
    source: "  {{a}},\n    {{a}};\n",
    error: /templates\/t\.hbs:2: \{\{a\}\} sits in two different places/,
  },
];
for (const { rule, source, error } of refused) {
  test(`module template: ${rule} is an error when the template loads`, () => {
    assert.throws(() => moduleTemplateOf("t.hbs", source), error);
  });
}

test("module template: the placement of a name it does not have is an error, not a guess", () => {
  assert.throws(
    () => moduleTemplateOf("t.hbs", "{{a}}\n").placement("b"),
    /templates\/t\.hbs has no placeholder \{\{b\}\}/,
  );
});
