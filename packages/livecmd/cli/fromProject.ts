import path from "node:path";
import { pathToFileURL } from "node:url";
import { resolve } from "import-meta-resolve";

/**
 * Where the project in `cwd` finds `specifier`, as its own `import` would (ES module conditions):
 * a package of the project's that livecmd does not declare, which a strict layout (pnpm) hides
 * from livecmd's own folder.
 */
export function resolveFromProject(specifier: string, cwd: string): string {
  return resolve(specifier, pathToFileURL(path.join(cwd, "package.json")).href);
}

/** Imports `specifier` as the project in `cwd` would (see `resolveFromProject`). */
export async function importFromProject(specifier: string, cwd: string): Promise<unknown> {
  return import(resolveFromProject(specifier, cwd));
}
