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

/**
 * A file printed with reuse: its text, the pieces it was joined from in order, and each piece's
 * bytes, to write the file by without joining it (`codegen --watch`). A generation makes a new
 * one only when the file's bytes changed (`sameBytes`).
 */
export interface PrintedFile {
  readonly pieces: readonly string[];
  readonly text: string;
  readonly bytes: readonly Uint8Array[];
  /** Which printing this is, and which one it was made from (`sameBytes`). */
  readonly id: number;
  readonly from: number | undefined;
}

let printings = 0;

/**
 * The lines as a file's text: every line ends with a newline; an empty line is blank. With
 * `reuse`, the text `file` had last time when its bytes are the same: a big module whose
 * commands are unchanged is not joined into one string again (nor compared byte by byte); when
 * a few pieces changed, only they are printed again (see `printedFile`).
 */
export function printCode(lines: CodeLine[], reuse?: { reuse: Reuse; file: string }): string {
  const printed: string[] = [];
  appendLines(lines, 0, printed);
  if (!reuse) return printed.join("");
  const same = (last: PrintedFile) =>
    last.pieces.length === printed.length &&
    last.pieces.every((piece, index) => piece === printed[index]);
  return reuse.reuse.of(FILES, reuse.file, (last) => reprinted(last, printed), same).text;
}

/** `file` as this generation printed it with `reuse`, if it did. */
export function printedFile(reuse: Reuse, file: string): PrintedFile | undefined {
  return reuse.made<PrintedFile>(FILES, file);
}

/**
 * Whether two printings of a file hold the same bytes: without comparing them when one was made
 * from the other (a printing made from another is new only when its bytes changed).
 */
export function sameBytes(before: PrintedFile, after: PrintedFile): boolean {
  if (before === after) return true;
  return after.from !== before.id && before.text === after.text;
}

/**
 * `pieces` as a file, made from the `last` one: `last` itself when the changed pieces join to
 * what they replace, else with the bytes of each piece that did not move kept.
 */
function reprinted(last: PrintedFile | undefined, pieces: string[]): PrintedFile {
  if (last && last.pieces.length === pieces.length) {
    const first = pieces.findIndex((piece, index) => piece !== last.pieces[index]);
    const end = pieces.findLastIndex((piece, index) => piece !== last.pieces[index]) + 1;
    if (pieces.slice(first, end).join("") === last.pieces.slice(first, end).join("")) return last;
  }
  const bytes = pieces.map((piece, index) =>
    last?.pieces[index] === piece ? last.bytes[index]! : Buffer.from(piece),
  );
  return { pieces, bytes, text: linked(pieces), id: ++printings, from: last?.id };
}

/**
 * `pieces` as one string that links them rather than copying them: a big app's file is
 * megabytes, which `join` (or a slice of the last text) would copy on every edit, and a large
 * string costs the garbage collector a full pass over the Project's heap. `codegen --watch`
 * writes the pieces' bytes (`printedFile`) and never reads this text whole.
 */
function linked(pieces: readonly string[]): string {
  let text = "";
  for (const piece of pieces) text += piece;
  return text;
}

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
