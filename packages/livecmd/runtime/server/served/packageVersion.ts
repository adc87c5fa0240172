import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** The version in the package.json nearest above `file` (a folder's own counts), if one says one. */
export function packageVersionNear(file: string): string | undefined {
  for (let folder = path.dirname(file); ; folder = path.dirname(folder)) {
    const manifest = path.join(folder, "package.json");
    if (existsSync(manifest))
      return (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/**
 * `serverInfo.version` of an app served from a program of its own (a mounted endpoint, or
 * `serveHttp` in the app's server) that sets none: its package's version, as `livecmd serve`
 * reads it beside the app module. The package is the entry script's, unless that script is a
 * tool's in node_modules (`next start`, a test runner's bin): then the working directory's.
 */
export function entryPackageVersion(
  { entry, cwd }: { entry: string | undefined; cwd: string } = {
    entry: process.argv[1],
    cwd: process.cwd(),
  },
): string | undefined {
  const ownScript = entry !== undefined && !entry.split(path.sep).includes("node_modules");
  return packageVersionNear(ownScript ? path.resolve(cwd, entry) : path.join(cwd, "package.json"));
}
