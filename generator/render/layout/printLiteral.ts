import { layOut, PRINT_WIDTH, type Placement } from "./layOut.ts";
import { assignmentDoc, isMatrix, isNumberList, literalDoc, propertyKey } from "./literalDoc.ts";
import { stringLiteral } from "./stringLiteral.ts";

const ASCII_ONLY = /^[\x20-\x7e]*$/;

/**
 * A JSON value as a TypeScript literal laid out at `placement`, exactly as `layOut(literalDoc())`
 * would lay it out, but printing a broken object or array line by line itself: the big literals
 * (a template's variables) then cost a string join, not a run of the general fitting printer.
 * Anything it does not handle directly (wide characters, lists of numbers) goes to the printer.
 */
export function printLiteral(value: unknown, placement: Placement): string {
  if (typeof value === "string") return stringLiteral(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const flat = mustBreak(value) ? undefined : flatLiteral(value);
  if (flat !== undefined && fitsAt(flat, placement)) return flat;
  if (flat !== undefined && !ASCII_ONLY.test(flat)) return layOut(literalDoc(value), placement);
  if (Array.isArray(value)) {
    if (isNumberList(value)) return layOut(literalDoc(value), placement);
    return broken("[", "]", value.map((element) => (indent: number) => printLiteral(element, { indent, column: indent, after: "," })), placement.indent);
  }
  return broken("{", "}", Object.entries(value).map(([key, entry]) => (indent: number) => printProperty(key, entry, indent)), placement.indent);
}

function printProperty(key: string, value: unknown, indent: number): string {
  const name = propertyKey(key);
  const beside = `${name}: `;
  if (typeof value === "object" && value !== null) return beside + printLiteral(value, { indent, column: indent + beside.length, after: "," });
  const literal = typeof value === "string" ? stringLiteral(value) : JSON.stringify(value);
  // A short key keeps its value beside it; a longer one may send a value that does not fit below.
  if (name.length < 5 || fitsAt(literal, { indent, column: indent + beside.length, after: "," })) return beside + literal;
  return layOut(assignmentDoc(name, literal, typeof value === "string"), { indent, column: indent, after: "," });
}

function broken(open: string, close: string, entries: ((indent: number) => string)[], indent: number): string {
  if (entries.length === 0) return open + close;
  const inner = indent + 2;
  const pad = " ".repeat(inner);
  return `${open}\n${entries.map((entry) => `${pad}${entry(inner)},\n`).join("")}${" ".repeat(indent)}${close}`;
}

function fitsAt(text: string, { column, after = "" }: Placement): boolean {
  return ASCII_ONLY.test(text) && column + text.length + after.length <= PRINT_WIDTH;
}

/** The literal on one line, as the flat layout of `literalDoc` prints it. */
function flatLiteral(value: unknown): string {
  if (typeof value === "string") return stringLiteral(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(flatLiteral).join(", ")}]`;
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([key, entry]) => `${propertyKey(key)}: ${flatLiteral(entry)}`).join(", ")} }`;
}

/** A table (see `isMatrix`) anywhere inside always breaks, and so does everything around it. */
function mustBreak(value: object): boolean {
  const values = Array.isArray(value) ? value : Object.values(value);
  if (Array.isArray(value) && isMatrix(value)) return true;
  return values.some((entry) => typeof entry === "object" && entry !== null && mustBreak(entry));
}
