import { flatText } from "./flatText.ts";
import { fitsOnLine, layOut, type Doc, type Placement } from "./layOut.ts";
import { assignmentDoc } from "./literalDoc.ts";

/**
 * `key: value` laid out whole at `placement`: beside its key when it fits, else as prettier's
 * assignment layouts break it (a string below its key, other values broken open).
 */
export function printProperty(
  key: string,
  value: Doc,
  valueIsString: boolean,
  placement: Placement,
): string {
  const flat = flatText(value);
  // Most values fit beside their key: then the doc printer has nothing to decide.
  if (flat !== undefined && fitsOnLine(`${key}: ${flat}`, placement.column, placement.after))
    return `${key}: ${flat}`;
  return layOut(assignmentDoc(key, value, valueIsString), placement);
}
