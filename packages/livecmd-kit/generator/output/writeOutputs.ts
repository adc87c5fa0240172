import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { OutputSet } from "../model.ts";

export interface WriteReport {
  written: string[];
  removed: string[];
  unchanged: number;
}

/**
 * Writes only the files whose bytes changed (mtimes stay put, watchers stay quiet) and removes
 * `extras`, the files codegen wrote before and no longer produces (see `surveyOutputFolder`).
 * `onDisk`: the bytes of files known to be on disk (what `codegen --watch` wrote), not read again.
 */
export async function writeOutputs(
  outDir: string,
  outputs: OutputSet,
  extras: readonly string[],
  onDisk: ReadonlyMap<string, string> = new Map(),
): Promise<WriteReport> {
  const folders = new Set([...outputs.keys()].map((file) => path.dirname(path.join(outDir, file))));
  for (const folder of [outDir, ...folders]) await mkdir(folder, { recursive: true });
  // Every file at once: a big app has thousands, and one at a time waits on each in turn.
  const changed = await Promise.all(
    [...outputs].map(async ([file, text]) => {
      const target = path.join(outDir, file);
      if ((onDisk.get(file) ?? (await readIfExists(target))) === text) return false;
      await writeFile(target, text);
      return true;
    }),
  );
  await Promise.all(extras.map((file) => rm(path.join(outDir, file))));
  const files = [...outputs.keys()];
  return {
    written: files.filter((_, index) => changed[index]),
    removed: [...extras],
    unchanged: changed.filter((wrote) => !wrote).length,
  };
}

export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Files under `dir` as sorted POSIX paths relative to it; none when it does not exist. */
export async function listFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
    )
    .sort();
}
