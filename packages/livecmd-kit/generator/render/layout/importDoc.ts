import { builders } from "prettier/doc";
import type { Doc } from "./layOut.ts";
import { stringLiteral } from "./stringLiteral.ts";

const { group, indent, line, ifBreak, join } = builders;

/** `import { a, b } from "m";`, one name a line when it does not fit; a lone name never breaks. */
export function importDoc(names: string[], from: string, typeOnly = false): Doc {
  const keyword = typeOnly ? "import type " : "import ";
  const specifiers =
    names.length === 1
      ? `{ ${names[0]} }`
      : group(["{", indent([line, join([",", line], names)]), ifBreak(","), line, "}"]);
  return [keyword, specifiers, ` from ${stringLiteral(from)};`];
}
