import { builders, printer, type builders as Builders } from "prettier/doc";
import { flatText } from "./flatText.ts";

export type Doc = Builders.Doc;

/** The pinned layout options: the prettier oracle in the tests formats with the same ones. */
export const PRINT_WIDTH = 100;
export const TAB_WIDTH = 2;

const ASCII_ONLY = /^[\x20-\x7e]*$/;

/**
 * True when one-line `text` fits from `column` with `after` following it. Only for printable
 * ASCII, whose width is its length: text with wide or combining characters answers false and
 * goes to the doc printer, which measures widths as prettier does.
 */
export function fitsOnLine(text: string, column: number, after = ""): boolean {
  return column + text.length + after.length <= PRINT_WIDTH && isPlainText(text);
}

/** Printable ASCII only: text whose width in columns is its length. */
export function isPlainText(text: string): boolean {
  return ASCII_ONLY.test(text);
}

export interface Placement {
  /** Spaces the enclosing lines are indented by: where broken contents indent from. */
  indent: number;
  /** Column the text starts at, on its first line. */
  column: number;
  /** What follows the text on its last line (e.g. `,`): it counts towards the width. */
  after?: string;
}

/**
 * Prints a doc where it sits in a generated line: at `column` of a line indented by `indent`,
 * followed by `after`. Returns the doc's text, from that column on. The fitting itself is
 * prettier's own doc printer (`prettier/doc`, no parser): the docs are built as prettier's
 * TypeScript printer builds them, so lines break exactly where prettier would break them.
 */
export function layOut(contents: Doc, { indent, column, after = "" }: Placement): string {
  const flat = flatText(contents);
  // What fits flat prints flat (the printer would find the same); only wide text needs its widths.
  if (flat !== undefined && fitsOnLine(flat, column, after)) return flat;
  // The line so far stands in as non-blank text, so the printer's trimming of blank line ends
  // cannot eat into it when the contents break right away.
  const line = ["x".repeat(column), builders.align(indent, [contents, after])];
  const printed = printer.printDocToString(line, {
    printWidth: PRINT_WIDTH,
    tabWidth: TAB_WIDTH,
    useTabs: false,
  }).formatted;
  return printed.slice(column, printed.length - after.length);
}
