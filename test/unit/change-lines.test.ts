import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  changeLines,
  LISTED_PER_FOLDER,
} from "../../packages/livecmd-kit/generator/output/changeLines.ts";

const pages = (count: number) =>
  Array.from({ length: count }, (_, i) => `skills/shop/references/page_${i}.md`);

describe("what codegen tells of the files it wrote and removed", () => {
  const cases: { rule: string; written: string[]; removed?: string[]; lines: string[] }[] = [
    {
      rule: "each file written is a line of its own, in the order written",
      written: ["catalog.json", "skills/shop/SKILL.md", "uris.ts"],
      lines: ["wrote gen/catalog.json", "wrote gen/skills/shop/SKILL.md", "wrote gen/uris.ts"],
    },
    {
      rule: `up to ${LISTED_PER_FOLDER} files in one folder are each named`,
      written: pages(LISTED_PER_FOLDER),
      lines: pages(LISTED_PER_FOLDER).map((file) => `wrote gen/${file}`),
    },
    {
      rule: "more files in one folder are its one line, where its first file would be",
      written: ["catalog.json", ...pages(2000), "uris.ts"],
      lines: [
        "wrote gen/catalog.json",
        "wrote gen/skills/shop/references/ (2000 files)",
        "wrote gen/uris.ts",
      ],
    },
    {
      rule: "removed files follow the written ones, by the same rule",
      written: ["catalog.json"],
      removed: ["old.ts", ...pages(LISTED_PER_FOLDER + 1)],
      lines: [
        "wrote gen/catalog.json",
        "removed gen/old.ts",
        `removed gen/skills/shop/references/ (${LISTED_PER_FOLDER + 1} files)`,
      ],
    },
    { rule: "nothing written or removed is no line", written: [], lines: [] },
  ];
  for (const { rule, written, removed = [], lines } of cases)
    it(rule, () => assert.deepEqual(changeLines("gen", written, removed), lines));
});
