import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The first better-sqlite3 major that needs Node.js 22, and crashes (a segfault) on Node.js 20. */
const FIRST_NODE_22_MAJOR = 13;

/**
 * What is wrong with the better-sqlite3 that `from` (a file, or a folder ending in `/`) resolves,
 * or undefined when nothing is, or when there is none (an app on another database). Checked
 * before the native module loads: the crash it prevents takes the whole process down.
 */
export function sqliteDriverProblem(from: string): string | undefined {
  let manifest: string;
  try {
    manifest = createRequire(from).resolve("better-sqlite3/package.json");
  } catch {
    return undefined;
  }
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  if (Number(version.split(".")[0]) < FIRST_NODE_22_MAJOR || nodeMajor >= 22) return undefined;
  return `better-sqlite3 ${version} (in ${path.dirname(manifest)}) needs Node.js 22 or later and crashes on Node.js ${process.versions.node}; install version 12: npm install better-sqlite3@^12`;
}
