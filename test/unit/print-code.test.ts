import assert from "node:assert/strict";
import { test } from "node:test";
import { builders } from "prettier/doc";
import {
  docUnit,
  indented,
  printCode,
  type CodeLine,
} from "../../packages/livecmd-kit/generator/render/layout/code.ts";
import { printJson } from "../../packages/livecmd-kit/generator/render/printJson.ts";
import { Reuse } from "../../packages/livecmd-kit/generator/reuse.ts";

const { group, indent, line } = builders;

const rows: { rule: string; lines: CodeLine[]; printed: string }[] = [
  {
    rule: "every line ends with a newline; an empty line is blank, with no indent",
    lines: ["a {", indented("b;", "", "c;"), "}"],
    printed: "a {\n  b;\n\n  c;\n}\n",
  },
  {
    rule: "a unit is told its line's indent, its column and the text after it up to the next unit",
    lines: [
      indented([
        "x = ",
        ({ indent, column, after }) => `f(${indent}, ${column}, "${after}")`,
        "; ",
        ({ column, after }) => `g(${column}, "${after}")`,
      ]),
    ],
    printed: `  x = f(2, 6, "; "); g(21, "")\n`,
  },
  {
    rule: "a unit that breaks over lines leaves the next unit at its last line's column",
    lines: [[() => "f(\n  a,\n)", " + ", ({ column }) => `${column}`]],
    printed: "f(\n  a,\n) + 4\n",
  },
  {
    rule: "a doc unit that does not fit breaks at its line's indent, counting what follows it",
    lines: [
      indented([
        docUnit(group([`if (${"a".repeat(80)})`, indent([line, "return;"])])),
        " // 13 columns",
      ]),
    ],
    printed: `  if (${"a".repeat(80)})\n    return; // 13 columns\n`,
  },
];
for (const { rule, lines, printed } of rows) {
  test(`printCode: ${rule}`, () => assert.equal(printCode(lines), printed));
}

test("printJson: objects one key a line, plain arrays on one line when they fit, no trailing commas", () => {
  const value = { a: [1, "b", null], b: {}, c: [], d: [{ e: true }], f: undefined };
  assert.equal(
    printJson(value),
    [
      "{",
      '  "a": [1, "b", null],',
      '  "b": {},',
      '  "c": [],',
      '  "d": [',
      "    {",
      '      "e": true',
      "    }",
      "  ]",
      "}",
      "",
    ].join("\n"),
  );
});

test("printCode with reuse: each generation's text is its lines joined, however many edits it was spliced over", () => {
  const reuse = new Reuse();
  const lines = Array.from({ length: 300 }, (_, index) => `line ${index};`);
  const edits: ((lines: string[]) => void)[] = [
    () => {},
    (lines) => (lines[0] = "first, longer than before;"),
    (lines) => (lines[299] = "last;"),
    (lines) => (lines[150] = ""),
    (lines) => lines.forEach((_, index) => index % 3 === 0 && (lines[index] = `x${index};`)),
    (lines) => lines.splice(10, 1),
    (lines) => (lines[7] = "seventh;"),
  ];
  for (const [generation, edit] of edits.entries()) {
    edit(lines);
    reuse.nextGeneration("all");
    const printed = printCode(["// head", indented(...lines)], { reuse, file: "file.ts" });
    assert.equal(printed, printCode(["// head", indented(...lines)]), `generation ${generation}`);
  }
});
