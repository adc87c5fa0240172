import assert from "node:assert/strict";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { listFiles } from "../../packages/livecmd-kit/generator/output/writeOutputs.ts";

export const updating = process.env.UPDATE_GOLDEN === "1";

/**
 * Compares a set of files with the folder `expectedDir`, both the set of names and every
 * file's bytes. With UPDATE_GOLDEN=1 it rewrites the folder instead.
 */
export async function assertGoldenFiles(
  expectedDir: string,
  actual: ReadonlyMap<string, string>,
): Promise<void> {
  if (updating) {
    await rm(expectedDir, { recursive: true, force: true });
    for (const [file, text] of actual) {
      await mkdir(path.dirname(path.join(expectedDir, file)), { recursive: true });
      await writeFile(path.join(expectedDir, file), text);
    }
    return;
  }
  assert.deepEqual(
    await listFiles(expectedDir),
    [...actual.keys()].sort(),
    `files in ${expectedDir}`,
  );
  for (const [file, text] of actual) {
    assert.equal(
      text,
      await readFile(path.join(expectedDir, file), "utf8"),
      `${expectedDir}/${file} (UPDATE_GOLDEN=1 rewrites it)`,
    );
  }
}
