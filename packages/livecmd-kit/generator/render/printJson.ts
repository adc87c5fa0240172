import type { Reuse } from "../reuse.ts";
import { printCode, reusedLines, type CodeLine } from "./layout/code.ts";
import { fitsOnLine, layOut, type Doc, type Placement } from "./layout/layOut.ts";
import { arrayDoc, isNumberList, numberListDoc } from "./layout/literalDoc.ts";

/**
 * Plain JSON data (undefined properties left out) laid out as prettier's `json` parser leaves
 * `JSON.stringify(value, null, 2)`: objects one key a line (prettier keeps an object expanded
 * when its source is), and arrays of plain values on one line when they fit in 100 columns. An
 * array holding an object or array stays one element a line: the catalog's schemas never hold
 * an array of arrays (enums, `type` and `required` list plain values). With `reuse`, each object
 * of the arrays directly in `value` (catalog.json's commands) is printed once while it is reused.
 */
export function printJson(value: unknown, reuse?: Reuse): string {
  const lines: CodeLine[] = [];
  if (reuse && isComposite(value) && !Array.isArray(value))
    appendMembers(value, "", "", lines, reuse);
  else appendJson(value, "", "", lines);
  return printCode(lines, reuse && { reuse, file: "catalog.json" });
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
    appendMembers(value, before, after, lines);
  } else {
    lines.push(`${before}${JSON.stringify(value)}${after}`);
  }
}

/** An object, one member a line; with `reuse`, its arrays' objects each printed once (`printJson`). */
function appendMembers(
  value: object,
  before: string,
  after: string,
  lines: CodeLine[],
  reuse?: Reuse,
): void {
  const entries = Object.entries(value).filter(([, entry]) => entry !== undefined);
  if (entries.length === 0) return void lines.push(`${before}{}${after}`);
  const members: CodeLine[] = [];
  entries.forEach(([key, entry], index) => {
    const name = `${JSON.stringify(key)}: `;
    const comma = index < entries.length - 1 ? "," : "";
    if (reuse && Array.isArray(entry) && entry.length > 0 && entry.every(isComposite))
      members.push(`${name}[`, { indented: reusedElements(entry, reuse) }, `]${comma}`);
    else appendJson(entry, name, comma, members);
  });
  lines.push(`${before}{`, { indented: members }, `}${after}`);
}

function reusedElements(elements: object[], reuse: Reuse): CodeLine[] {
  return elements.map((element, index) => {
    const comma = index < elements.length - 1 ? "," : "";
    return reusedLines(reuse, element, `json${comma}`, () => {
      const lines: CodeLine[] = [];
      appendJson(element, "", comma, lines);
      return lines;
    });
  });
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
