import path from "node:path";
import type { App } from "livecmd";
import { engineOf, sqliteDriverProblem } from "livecmd/internal";
import { importModule } from "./importModule.ts";
import { InputError } from "./inputError.ts";

/** The app `file` (relative to `cwd`) exports by default, with its generated catalog: what `serve` and `inspect --reads` run. */
export async function loadApp(file: string, cwd: string): Promise<App> {
  const driverProblem = sqliteDriverProblem(path.resolve(cwd, file));
  if (driverProblem) throw new InputError(driverProblem);
  const app = (await importModule(file, cwd)).default as App | undefined;
  if (typeof app !== "object" || app === null || !(app.commands instanceof Map)) {
    throw new InputError(
      `${file} must export the app as its default export (export default defineApp({ ... }))`,
    );
  }
  if (!engineOf(app).generated) {
    throw new InputError(
      `the app in ${file} has no generated catalog; run \`npx livecmd codegen\` and pass defineApp({ generated: { catalog, templates } })`,
    );
  }
  return app;
}
