import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * How the docs test treats a block, from the HTML comment above its fence (blank lines between
 * them aside: `<!-- docs-test: skip: why -->`); a block with none runs as it is.
 *
 * - `skip: <why>`: not run here; the test lists why.
 * - `serve`: runs while the example app is served over HTTP; `3000` in the block is its port.
 * - `until-shown`: a `$ command` that serves: it runs until it has printed the lines shown
 *   under it, then is stopped; `3000` in the block is a free port.
 */
export type Directive =
  { kind: "run" } | { kind: "serve" } | { kind: "until-shown" } | { kind: "skip"; why: string };

/** A fenced block of shell or TypeScript in a markdown file. */
export interface DocBlock {
  /** `docs/mcp.md:1160`: the file, and the line of its opening fence. */
  readonly at: string;
  readonly language: "sh" | "ts";
  readonly text: string;
  readonly directive: Directive;
}

const LANGUAGES: Readonly<Record<string, DocBlock["language"]>> = {
  sh: "sh",
  bash: "sh",
  shell: "sh",
  ts: "ts",
  typescript: "ts",
};
const DIRECTIVE = /^<!-- docs-test: (run|serve|until-shown|skip: (.+?)) -->$/;

/** Every shell and TypeScript block of `file` (relative to `root`), in order. */
export function docBlocks(root: string, file: string): DocBlock[] {
  const lines = readFileSync(path.join(root, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let at = 0; at < lines.length; at += 1) {
    const fence = /^```(\S*)$/.exec(lines[at]!);
    if (!fence) continue;
    const end = lines.indexOf("```", at + 1);
    if (end < 0) throw new Error(`${file}:${at + 1}: a fence that never closes`);
    const language = LANGUAGES[fence[1]!];
    // Prettier keeps a blank line between an HTML comment and the fence.
    let previous = at - 1;
    while (previous > 0 && lines[previous]!.trim() === "") previous -= 1;
    const above = lines[previous] ?? "";
    if (language)
      blocks.push({
        at: `${file}:${at + 1}`,
        language,
        text: lines.slice(at + 1, end).join("\n"),
        directive: directiveOf(above, `${file}:${at}`),
      });
    else if (above.startsWith("<!-- docs-test"))
      throw new Error(`${file}:${at}: a docs-test comment above a block that is neither sh nor ts`);
    at = end;
  }
  return blocks;
}

function directiveOf(line: string, at: string): Directive {
  if (!line.startsWith("<!-- docs-test")) return { kind: "run" };
  const parsed = DIRECTIVE.exec(line);
  if (!parsed)
    throw new Error(
      `${at}: "${line}" is not a docs-test comment: write <!-- docs-test: skip: why -->, serve or until-shown`,
    );
  if (parsed[2] !== undefined) return { kind: "skip", why: parsed[2] };
  return { kind: parsed[1] as "run" | "serve" | "until-shown" };
}

/**
 * A shell transcript's commands and what each prints (`$ command`, then its output lines), or
 * undefined for a plain script (no `$` prompt).
 */
export function transcript(text: string): { command: string; shown: string[] }[] | undefined {
  const lines = text.split("\n");
  if (!lines.some((line) => line.startsWith("$ "))) return undefined;
  const steps: { command: string; shown: string[] }[] = [];
  for (const line of lines) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), shown: [] });
    else if (line.trim() !== "") steps.at(-1)?.shown.push(line);
  }
  return steps;
}
