import { existsSync } from "node:fs";
import path from "node:path";
import type { CompilerOptions } from "ts-morph";

/** A JavaScript module: an app compiled by tsc (or written in JavaScript), whose types are gone. */
export const JAVASCRIPT_MODULE = /\.[cm]?jsx?$/;

/** The TypeScript extensions a JavaScript extension is compiled from. */
const SOURCE_EXTENSIONS: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

/**
 * The TypeScript module the JavaScript module `compiled` (absolute) was compiled from, if it is
 * there: mapped back from the tsconfig's `outDir` to its `rootDir` (its folder when unset), or
 * beside it.
 */
export function typeScriptSourceOf(
  compiled: string,
  options: CompilerOptions,
  configFolder: string,
): string | undefined {
  const extension = path.extname(compiled);
  const stem = compiled.slice(0, -extension.length);
  const stems = [stem];
  const { outDir, rootDir = configFolder } = options;
  const fromOut = outDir && path.relative(outDir, stem);
  if (fromOut && !fromOut.startsWith("..") && !path.isAbsolute(fromOut))
    stems.unshift(path.join(rootDir, fromOut));
  return stems
    .flatMap((candidate) => (SOURCE_EXTENSIONS[extension] ?? []).map((ext) => candidate + ext))
    .find((candidate) => existsSync(candidate));
}
