import path from "node:path";

/** `to` relative to `from`, with `/` between its parts on every system: what codegen prints and writes. */
export function posixRelative(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join("/");
}
