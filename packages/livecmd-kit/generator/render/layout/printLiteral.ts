import { fitsOnLine, isPlainText, layOut, TAB_WIDTH, type Placement } from "./layOut.ts";
import { assignmentDoc, isMatrix, isNumberList, isShortKey, literalDoc } from "./literalDoc.ts";
import { propertyKey } from "./propertyKey.ts";
import { stringLiteral } from "./stringLiteral.ts";

/**
 * A JSON value as a TypeScript literal laid out at `placement`, exactly as `layOut(literalDoc())`
 * would lay it out, but printing a broken object or array line by line itself: the big literals
 * (a template's variables) then cost a string join, not a run of the general fitting printer.
 * Anything it does not handle directly (wide characters, lists of numbers) goes to the printer.
 */
export function printLiteral(value: unknown, placement: Placement): string {
  return new LiteralPrinter().print(value, placement);
}

/** `key: value` for a JSON value, laid out at `placement` as a property of a literal is. */
export function printLiteralProperty(key: string, value: unknown, placement: Placement): string {
  return new LiteralPrinter().property(key, value, placement);
}

class LiteralPrinter {
  /** Each object's or array's one-line text, undefined when it must break; worked out once. */
  private readonly flats = new Map<object, string | undefined>();

  print(value: unknown, placement: Placement): string {
    if (value === null || typeof value !== "object") return this.flat(value)!;
    const flat = this.flat(value);
    if (flat !== undefined && fitsOnLine(flat, placement.column, placement.after)) return flat;
    if ((flat !== undefined && !isPlainText(flat)) || (Array.isArray(value) && isNumberList(value)))
      return layOut(literalDoc(value), placement);
    if (Array.isArray(value))
      return broken(
        "[",
        "]",
        value.map(
          (element) => (indent: number) =>
            this.print(element, { indent, column: indent, after: "," }),
        ),
        placement.indent,
      );
    return broken(
      "{",
      "}",
      Object.entries(value).map(
        ([key, entry]) =>
          (indent: number) =>
            this.property(key, entry, { indent, column: indent, after: "," }),
      ),
      placement.indent,
    );
  }

  /** `key: value`: a short key keeps its value beside it; a longer one may send a value that does not fit below. */
  property(key: string, value: unknown, { indent, column, after = "" }: Placement): string {
    const name = propertyKey(key);
    const beside = `${name}: `;
    const placement = { indent, column: column + beside.length, after };
    if (typeof value === "object" && value !== null) return beside + this.print(value, placement);
    const literal = this.flat(value)!;
    if (isShortKey(name) || fitsOnLine(literal, placement.column, placement.after))
      return beside + literal;
    return layOut(assignmentDoc(name, literal, typeof value === "string"), {
      indent,
      column,
      after,
    });
  }

  /** The literal on one line, as the flat layout of `literalDoc` prints it; undefined if it must break. */
  private flat(value: unknown): string | undefined {
    if (typeof value === "string") return stringLiteral(value);
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (this.flats.has(value)) return this.flats.get(value);
    const flat = this.flatOf(value);
    this.flats.set(value, flat);
    return flat;
  }

  private flatOf(value: object): string | undefined {
    if (Array.isArray(value)) {
      // A table (see `isMatrix`) always breaks, and so does everything around it.
      const elements = isMatrix(value) ? undefined : value.map((element) => this.flat(element));
      return elements === undefined || elements.includes(undefined)
        ? undefined
        : `[${elements.join(", ")}]`;
    }
    const entries = Object.entries(value).map(
      ([key, entry]) => [propertyKey(key), this.flat(entry)] as const,
    );
    if (entries.some(([, flat]) => flat === undefined)) return undefined;
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([key, flat]) => `${key}: ${flat}`).join(", ")} }`;
  }
}

function broken(
  open: string,
  close: string,
  entries: ((indent: number) => string)[],
  indent: number,
): string {
  if (entries.length === 0) return open + close;
  const inner = indent + TAB_WIDTH;
  const pad = " ".repeat(inner);
  return `${open}\n${entries.map((entry) => `${pad}${entry(inner)},\n`).join("")}${" ".repeat(indent)}${close}`;
}
