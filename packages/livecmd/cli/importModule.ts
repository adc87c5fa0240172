import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isSetupError, missingBinaryProblem, missingNodeSqliteProblem } from "livecmd/internal";
import { InputError } from "./inputError.ts";
import { withPackage } from "./devPackages.ts";

const TYPESCRIPT = /\.[cm]?tsx?$/;

let typeScriptLoaded: Promise<void> | undefined;

/**
 * Imports a module of the user's (`file`, relative to `cwd`): a compiled `.js` one on plain
 * Node, a TypeScript one through tsx's loader, registered only when a `.ts` file asks for it.
 * `compiledWillDo`: whether the caller runs the compiled module as well, which a missing tsx's
 * message then offers.
 */
export async function importModule(
  file: string,
  cwd: string,
  { compiledWillDo = true } = {},
): Promise<Record<string, unknown>> {
  const absolute = path.resolve(cwd, file);
  if (!existsSync(absolute)) throw new InputError(`${file} does not exist (looked in ${cwd})`);
  if (TYPESCRIPT.test(file)) await loadTypeScript(file, cwd, compiledWillDo);
  try {
    return (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    if (isSetupError(error)) throw new InputError(error.message);
    const missingBinary = missingBinaryProblem(error);
    if (missingBinary) throw new InputError(`${file}: ${missingBinary}`);
    const missingNodeSqlite = missingNodeSqliteProblem(error);
    if (missingNodeSqlite) throw new InputError(`${file}: ${missingNodeSqlite}`);
    throw error;
  }
}

function loadTypeScript(file: string, cwd: string, compiledWillDo: boolean): Promise<void> {
  typeScriptLoaded ??= withPackage(
    `loading ${file}, which is TypeScript,`,
    "tsx",
    async () => {
      const { importFromProject } = await import("./fromProject.ts");
      const tsx = (await importFromProject("tsx/esm/api", cwd)) as { register(): void };
      tsx.register();
    },
    compiledWillDo ? `; or compile it and pass the .js (e.g. --app dist/app.js)` : "",
  );
  return typeScriptLoaded;
}
