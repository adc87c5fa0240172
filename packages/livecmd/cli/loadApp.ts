import path from "node:path";
import type { App } from "livecmd";
import { sqliteDriverProblem } from "livecmd/internal";
import { importModule } from "./importModule.ts";
import { InputError } from "./inputError.ts";

/**
 * The app `file` (relative to `cwd`) exports by default: what `serve` and `inspect --reads` run
 * (the server refuses one without its generated catalog). `options` as `importModule` takes them.
 */
export async function loadApp(
  file: string,
  cwd: string,
  options?: { compiledWillDo?: boolean },
): Promise<App> {
  const driverProblem = sqliteDriverProblem(path.resolve(cwd, file));
  if (driverProblem) throw new InputError(driverProblem);
  const app = (await importModule(file, cwd, options)).default as App | undefined;
  if (typeof app !== "object" || app === null || !(app.commands instanceof Map)) {
    throw new InputError(
      `${file} must export the app as its default export (export default defineApp({ ... }))`,
    );
  }
  return app;
}
