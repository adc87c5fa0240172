import { builders, utils } from "prettier/doc";
import type { Doc } from "./layOut.ts";

const { group, conditionalGroup, indent, line, softline, ifBreak, join, breakParent } = builders;

/**
 * The parenthesised arguments of a call, as prettier lays them out: all on one line, else (when
 * the last argument is an object or array and the one before it is not of the same kind) the
 * last one "hugged", opened on the call's line, else one argument a line.
 */
export function argumentsDoc(args: Doc[], lastIsHuggable: boolean): Doc {
  const brokenOut = (contents: Doc[]) =>
    group(["(", indent([line, join([",", line], contents)]), ifBreak(","), line, ")"], {
      shouldBreak: true,
    });
  if (!lastIsHuggable)
    return group(["(", indent([softline, join([",", line], args)]), ifBreak(","), softline, ")"]);
  const leading = args.slice(0, -1);
  const last = args.at(-1)!;
  const hugged = [
    "(",
    ...leading.flatMap((arg) => [arg, ", "]),
    group(last, { shouldBreak: true }),
    ")",
  ];
  if (utils.willBreak(last)) return [breakParent, conditionalGroup([hugged, brokenOut(args)])];
  const flat = ["(", join([",", line], args), ")"];
  return conditionalGroup([flat, hugged, brokenOut(args)]);
}
