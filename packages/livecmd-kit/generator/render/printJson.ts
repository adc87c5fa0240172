import { fitsOnLine, layOut, type Doc } from "./layout/layOut.ts";
import { arrayDoc, isMatrix, isNumberList, numberListDoc } from "./layout/literalDoc.ts";

/** An array of plain values as `JSON.stringify(value, null, 2)` writes it, one value a line. */
const PLAIN_ARRAY =
  /\[\n( *)(?:(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null),\n\1)*(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)\n *\]/g;

/**
 * JSON laid out as prettier's `json` parser leaves `JSON.stringify(value, null, 2)`: objects one
 * key a line (prettier keeps an object expanded when its source is), and arrays of plain values
 * on one line when they fit in 100 columns. An array of arrays stays one element a line: the
 * catalog's schemas never hold one (enums, `type` and `required` list plain values).
 */
export function printJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2);
  return `${text.replace(PLAIN_ARRAY, (array: string, _indent: string, offset: number) => layOutArray(text, array, offset))}\n`;
}

function layOutArray(text: string, array: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset) + 1;
  const column = offset - lineStart;
  const after = text[offset + array.length] === "," ? "," : "";
  // The values as JSON.stringify wrote them, one a line: all but the last end with the separator.
  const values = array
    .split("\n")
    .slice(1, -1)
    .map((value, index, all) => value.trim().slice(0, index < all.length - 1 ? -1 : undefined));
  const flat = `[${values.join(", ")}]`;
  if (fitsOnLine(flat, column, after)) return flat;
  const indent = text.slice(lineStart, offset).search(/[^ ]|$/);
  return layOut(jsonArrayDoc(JSON.parse(array) as unknown[]), { indent, column, after });
}

/** JSON strings keep JSON's double quotes, and JSON has no trailing commas. */
function jsonArrayDoc(values: unknown[]): Doc {
  if (isNumberList(values)) return numberListDoc(values, "");
  return arrayDoc(
    values.map((value) => JSON.stringify(value)),
    isMatrix(values),
    "",
  );
}
