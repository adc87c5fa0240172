import { flatText } from "./flatText.ts";
import { fitsOnLine, isPlainText, layOut, TAB_WIDTH, type Doc, type Placement } from "./layOut.ts";

/**
 * A bracketed list with no hugging (an array, or call arguments where no last one is hugged) laid
 * out as prettier lays it out: on one line when it fits, else one item a line, each item laid
 * out on its own line with the comma after it. `whole` is the same list as one doc, printed by
 * the general printer when an item holds wide characters or a forced break. `alwaysBreak` is
 * for a list prettier breaks whatever its width (see `isMatrix`).
 */
export function printList(
  items: Doc[],
  [open, close]: string,
  placement: Placement,
  whole: Doc,
  alwaysBreak = false,
): string {
  const flatItems = items.map(flatText);
  if (flatItems.some((item) => item === undefined || !isPlainText(item)))
    return layOut(whole, placement);
  const flat = `${open}${(flatItems as string[]).join(", ")}${close}`;
  if (!alwaysBreak && fitsOnLine(flat, placement.column, placement.after)) return flat;
  const inner = placement.indent + TAB_WIDTH;
  const pad = " ".repeat(inner);
  const lines = items.map((item, index) => {
    const text = flatItems[index]!;
    const laidOut = fitsOnLine(text, inner, ",")
      ? text
      : layOut(item, { indent: inner, column: inner, after: "," });
    return `${pad}${laidOut},\n`;
  });
  return `${open}\n${lines.join("")}${" ".repeat(placement.indent)}${close}`;
}
