import path from "node:path";

/**
 * More files than this written to (or removed from) one folder are told as one line: a big app's
 * first run writes a skill page per command, and 2,000 lines would bury the summary and notes.
 */
export const LISTED_PER_FOLDER = 5;

/**
 * What a run did to `out` (the output folder as the user named it), one line per file, in the
 * order given: `wrote <out>/<file>`, `removed <out>/<file>`, except that a folder with more than
 * `LISTED_PER_FOLDER` such files is one line where its first one would be,
 * `wrote <out>/<folder>/ (N files)`.
 */
export function changeLines(
  out: string,
  written: readonly string[],
  removed: readonly string[],
): string[] {
  return [...linesFor("wrote", out, written), ...linesFor("removed", out, removed)];
}

function linesFor(verb: string, out: string, files: readonly string[]): string[] {
  const perFolder = new Map<string, number>();
  for (const file of files) {
    const folder = path.posix.dirname(file);
    perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  }
  const told = new Set<string>();
  return files.flatMap((file) => {
    const folder = path.posix.dirname(file);
    const count = perFolder.get(folder)!;
    if (count <= LISTED_PER_FOLDER) return [`${verb} ${out}/${file}`];
    if (told.has(folder)) return [];
    told.add(folder);
    return [`${verb} ${out}/${folder}/ (${count} files)`];
  });
}
