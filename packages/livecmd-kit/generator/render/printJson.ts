import { printCode, type CodeLine } from "./layout/code.ts";
import { fitsOnLine, layOut, type Doc, type Placement } from "./layout/layOut.ts";
import { arrayDoc, isNumberList, numberListDoc } from "./layout/literalDoc.ts";

/**
 * Plain JSON data (undefined properties left out) laid out as prettier's `json` parser leaves
 * `JSON.stringify(value, null, 2)`: objects one key a line (prettier keeps an object expanded
 * when its source is), and arrays of plain values on one line when they fit in 100 columns. An
 * array holding an object or array stays one element a line: the catalog's schemas never hold
 * an array of arrays (enums, `type` and `required` list plain values).
 */
export function printJson(value: unknown): string {
  const lines: CodeLine[] = [];
  appendJson(value, "", "", lines);
  return printCode(lines);
}

/**
 * `value` as lines appended to `lines`, `before` (a key) starting its first line and `after`
 * ending its last. Appended, not returned: the catalog of a big app is a quarter of a million lines.
 */
function appendJson(value: unknown, before: string, after: string, lines: CodeLine[]): void {
  if (Array.isArray(value) && (value.length === 0 || !value.some(isComposite))) {
    lines.push([before, (placement) => plainArray(value, placement), after]);
  } else if (Array.isArray(value)) {
    const elements: CodeLine[] = [];
    value.forEach((element, index) =>
      appendJson(element, "", index < value.length - 1 ? "," : "", elements),
    );
    lines.push(`${before}[`, { indented: elements }, `]${after}`);
  } else if (isComposite(value)) {
    const entries = Object.entries(value).filter(([, entry]) => entry !== undefined);
    if (entries.length === 0) return void lines.push(`${before}{}${after}`);
    const members: CodeLine[] = [];
    entries.forEach(([key, entry], index) =>
      appendJson(entry, `${JSON.stringify(key)}: `, index < entries.length - 1 ? "," : "", members),
    );
    lines.push(`${before}{`, { indented: members }, `}${after}`);
  } else {
    lines.push(`${before}${JSON.stringify(value)}${after}`);
  }
}

function isComposite(value: unknown): value is object {
  return value !== null && typeof value === "object";
}

/** An array of plain values: on one line when it fits, else as prettier breaks it. */
function plainArray(values: unknown[], placement: Placement): string {
  const texts = values.map((value) => JSON.stringify(value));
  const flat = `[${texts.join(", ")}]`;
  if (fitsOnLine(flat, placement.column, placement.after)) return flat;
  return layOut(jsonArrayDoc(values, texts), placement);
}

/** JSON strings keep JSON's double quotes, and JSON has no trailing commas. */
function jsonArrayDoc(values: unknown[], texts: string[]): Doc {
  if (isNumberList(values)) return numberListDoc(values, "");
  return arrayDoc(texts, false, "");
}
