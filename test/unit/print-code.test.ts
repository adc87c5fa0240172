import assert from "node:assert/strict";
import { test } from "node:test";
import { builders } from "prettier/doc";
import {
  docUnit,
  indented,
  printCode,
  printedFile,
  reusedLines,
  sameBytes,
  type CodeLine,
  type PrintedFile,
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

test("printCode with reuse: each generation's text, and the bytes it is written by, are its lines joined, however many edits it was printed over", () => {
  const reuse = new Reuse();
  const lines = Array.from({ length: 300 }, (_, index) => `line ${index};`);
  const edits: ((lines: string[]) => void)[] = [
    () => {},
    (lines) => (lines[0] = "first, longer than before;"),
    (lines) => (lines[299] = "last — with a character of more than one byte;"),
    (lines) => (lines[150] = ""),
    (lines) => lines.forEach((_, index) => index % 3 === 0 && (lines[index] = `x${index};`)),
    (lines) => lines.splice(10, 1),
    (lines) => (lines[7] = "seventh;"),
  ];
  for (const [generation, edit] of edits.entries()) {
    edit(lines);
    reuse.nextGeneration("all");
    const printed = printCode(["// head", indented(...lines)], { reuse, file: "file.ts" });
    const expected = printCode(["// head", indented(...lines)]);
    assert.equal(printed, expected, `generation ${generation}`);
    const bytes = Buffer.concat(printedFile(reuse, "file.ts")!.bytes);
    assert.equal(bytes.toString("utf8"), expected, `generation ${generation}`);
  }
});

/** Prints `lines` as the next generation of file.ts, and says what it printed. */
function nextPrinting(reuse: Reuse, lines: CodeLine[]): PrintedFile {
  reuse.nextGeneration("all");
  printCode(lines, { reuse, file: "file.ts" });
  return printedFile(reuse, "file.ts")!;
}

const printings: { rule: string; before: CodeLine[]; after: CodeLine[]; same: boolean }[] = [
  {
    rule: "the same lines are the same bytes",
    before: ["a;", "b;"],
    after: ["a;", "b;"],
    same: true,
  },
  {
    rule: "a changed line changes the bytes",
    before: ["a;", "b;"],
    after: ["a;", "c;"],
    same: false,
  },
  {
    rule: "a changed line of the same length changes the bytes",
    before: ["revision 1;", "b;"],
    after: ["revision 2;", "b;"],
    same: false,
  },
  { rule: "a line added changes the bytes", before: ["a;"], after: ["a;", "b;"], same: false },
];
for (const { rule, before, after, same } of printings) {
  test(`printedFile with reuse: ${rule}, and sameBytes says so without a fresh print's help`, () => {
    const reuse = new Reuse();
    const first = nextPrinting(reuse, before);
    const second = nextPrinting(reuse, after);
    assert.equal(sameBytes(first, second), same);
    // A printing made from nothing kept (a generation that failed in between) is compared by its text.
    const fresh = nextPrinting(new Reuse(), after);
    assert.equal(sameBytes(first, fresh), same);
  });
}

test("printedFile with reuse: pieces split otherwise but joining to the same text are the same bytes, kept as they were", () => {
  const reuse = new Reuse();
  const first = nextPrinting(reuse, ["a", "b"]);
  const empty = reusedLines(reuse, {}, "nothing", () => []);
  const second = nextPrinting(reuse, ["a\nb", empty]);
  assert.deepEqual(second.pieces.length, first.pieces.length);
  assert.equal(second, first);
});
