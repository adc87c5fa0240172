import { printCode, type CodeLine } from "../layout/code.ts";
import { printJson } from "../printJson.ts";
import type { Reuse } from "../../reuse.ts";

/**
 * Markdown as the skill's pages write it, laid out as prettier's `markdown` parser leaves it (the
 * layout oracle test holds them to that): blocks apart by one blank line, fenced code laid out
 * by the layout engine, and nothing prose-wrapped.
 */

/**
 * `text` as a code span: fenced with more backticks than it holds in a row, and padded with a
 * space only where it starts or ends with a backtick (CommonMark strips the padding; prettier
 * writes it only there).
 */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map(([run]) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced code block of `language`, its lines `indent` in (a list item's content column). */
export function fenced(language: string, text: string, indent = ""): string[] {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return [
    `${indent}\`\`\`${language}`,
    ...lines.map((line) => (line ? indent + line : "")),
    `${indent}\`\`\``,
  ];
}

/** JSON data as a fenced block, laid out as catalog.json is. */
export function jsonBlock(value: unknown, indent = ""): string[] {
  return fenced("json", printJson(value), indent);
}

/** Generated TypeScript (the layout engine's lines) as a fenced block. */
export function typescriptBlock(lines: CodeLine[]): string[] {
  return fenced("ts", printCode(lines));
}

/**
 * Blocks (each some lines) as a page: one blank line between blocks, a newline at the end. With
 * `reuse`, printed as `printCode` prints a file with it.
 */
export function page(
  blocks: readonly (readonly string[])[],
  reuse?: { reuse: Reuse; file: string },
): string {
  const lines: CodeLine[] = [];
  for (const block of blocks.filter((each) => each.length > 0)) {
    if (lines.length > 0) lines.push("");
    lines.push(...block);
  }
  return printCode(lines, reuse);
}
