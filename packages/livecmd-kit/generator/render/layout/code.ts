import type { Reuse } from "../../reuse.ts";
import { layOut, TAB_WIDTH, type Doc, type Placement } from "./layOut.ts";

/**
 * A construct laid out where it lands: given its line's indent, its column and the text after it
 * on the line, the text it prints (which may break over lines).
 */
type Unit = (placement: Placement) => string;

/** One line: text, and units wherever the line holds something that may break. */
export type Line = string | (string | Unit)[];

/** Lines one tab width further in than the lines around them. */
interface Indented {
  indented: CodeLine[];
}

/** Lines made from `owner` alone: printed once where they land, and reused with the owner. */
interface Reused {
  reused: { reuse: Reuse | undefined; owner: object; part: string; lines: () => CodeLine[] };
}

/**
 * Generated code as lines and indented blocks, the statements that never break written as text
 * and every construct that may break as a unit. The printer works out where each unit lands,
 * so no code that writes a construct counts columns.
 */
export type CodeLine = Line | Indented | Reused;

export function indented(...lines: CodeLine[]): Indented {
  return { indented: lines };
}

/**
 * The lines `lines()` makes from `owner` (a command's plan), as `part` of a module: with
 * `reuse` (`codegen --watch`), printed text the last generation made from the same owner at the
 * same indent is used again, so an edit prints only the parts of the commands it changed.
 */
export function reusedLines(
  reuse: Reuse | undefined,
  owner: object,
  part: string,
  lines: () => CodeLine[],
): Reused {
  return { reused: { reuse, owner, part, lines } };
}

/** A prettier doc as a unit: the doc printer (or its flat fast path) lays it out. */
export function docUnit(doc: Doc): Unit {
  return (placement) => layOut(doc, placement);
}

/** Where the text of each generated file is kept between generations (`printCode`). */
const FILES = {};

/** A file's text and the pieces it was joined from, in order. */
interface PrintedFile {
  pieces: string[];
  text: string;
}

/**
 * The lines as a file's text: every line ends with a newline; an empty line is blank. With
 * `reuse`, the text `file` had last time when every piece of it is the same: a big module whose
 * commands are unchanged is not joined into one string again (nor compared byte by byte); when
 * a few pieces changed, only they are spliced into the last text.
 */
export function printCode(lines: CodeLine[], reuse?: { reuse: Reuse; file: string }): string {
  const printed: string[] = [];
  appendLines(lines, 0, printed);
  if (!reuse) return printed.join("");
  const same = (last: PrintedFile) =>
    last.pieces.length === printed.length &&
    last.pieces.every((piece, index) => piece === printed[index]);
  const text = (last: PrintedFile | undefined) => ({
    pieces: printed,
    text: (last && spliced(last, printed)) ?? printed.join(""),
  });
  return reuse.reuse.of(FILES, reuse.file, text, same).text;
}

/**
 * `pieces` joined, made from `last`'s text with only the pieces that differ put in its place:
 * a string of slices, which costs the changed pieces rather than the file (the file of a big
 * app is megabytes, and an edit changes a few of its thousands of pieces). Undefined when the
 * pieces do not line up one for one, or too many changed for splicing to pay.
 */
function spliced(last: PrintedFile, pieces: string[]): string | undefined {
  if (last.pieces.length !== pieces.length) return undefined;
  // Concatenated with `+`, not joined: V8 then links the slices rather than copying them.
  let text = "";
  let splices = 0;
  let kept = 0;
  let offset = 0;
  for (const [index, piece] of pieces.entries()) {
    const before = last.pieces[index]!;
    if (piece !== before) {
      if (++splices > MAX_SPLICES) return undefined;
      text += last.text.slice(kept, offset) + piece;
      kept = offset + before.length;
    }
    offset += before.length;
  }
  return text + last.text.slice(kept);
}

/** Past this many changed pieces, joining them all again is as cheap as splicing. */
const MAX_SPLICES = 64;

function appendLines(lines: CodeLine[], indent: number, printed: string[]): void {
  for (const line of lines) {
    if (typeof line === "string") printed.push(line === "" ? "\n" : `${pad(indent)}${line}\n`);
    else if ("indented" in line) appendLines(line.indented, indent + TAB_WIDTH, printed);
    else if ("reused" in line) appendReused(line.reused, indent, printed);
    else printed.push(`${printPieces(line, indent)}\n`);
  }
}

function appendReused(
  { reuse, owner, part, lines }: Reused["reused"],
  indent: number,
  printed: string[],
): void {
  if (!reuse) return appendLines(lines(), indent, printed);
  const print = () => {
    const own: string[] = [];
    appendLines(lines(), indent, own);
    return own.join("");
  };
  printed.push(reuse.of(owner, `${part} at ${indent}`, print));
}

function printPieces(pieces: (string | Unit)[], indent: number): string {
  let text = pad(indent);
  pieces.forEach((piece, index) => {
    if (typeof piece === "string") {
      text += piece;
      return;
    }
    const column = text.length - (text.lastIndexOf("\n") + 1);
    text += piece({ indent, column, after: textUntilUnit(pieces.slice(index + 1)) });
  });
  return text;
}

/** The text that follows a unit on its line, up to the next unit: it counts towards the unit's width. */
function textUntilUnit(pieces: (string | Unit)[]): string {
  const next = pieces.findIndex((piece) => typeof piece !== "string");
  return (next === -1 ? pieces : pieces.slice(0, next)).join("");
}

/** The spaces of each indent, made once: a big module has a line at one of a few indents. */
const pads: string[] = [];

function pad(indent: number): string {
  return (pads[indent] ??= " ".repeat(indent));
}
