import path from "node:path";
import type { OutputSet } from "../model.ts";
import { readIfExists } from "./writeOutputs.ts";

export interface CheckProblem {
  kind: "stale" | "missing" | "extra";
  file: string;
  /** A unified diff from what is on disk to what the generator produces (stale files only). */
  diff?: string;
}

/** Compares the bytes a write would produce with what is on disk; never writes. */
export async function checkOutputs(
  outDir: string,
  outputs: OutputSet,
  extras: readonly string[],
): Promise<CheckProblem[]> {
  const problems: CheckProblem[] = [];
  for (const [file, text] of outputs) {
    const onDisk = readIfExists(path.join(outDir, file));
    if (onDisk === undefined) problems.push({ kind: "missing", file });
    else if (onDisk !== text) {
      // Loaded only when something is stale: an up-to-date check does not pay for it.
      const { createTwoFilesPatch } = await import("diff");
      problems.push({
        kind: "stale",
        file,
        diff: createTwoFilesPatch(`a/${file}`, `b/${file}`, onDisk, text, "", "", { context: 3 }),
      });
    }
  }
  for (const file of extras) problems.push({ kind: "extra", file });
  return problems;
}
