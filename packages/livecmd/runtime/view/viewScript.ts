import { readFileSync } from "node:fs";
import { packageFile } from "../packageFile.ts";

/**
 * The view runtime (`packages/livecmd/view/`: the ext-apps app SDK, the watch loop, the default
 * renderer), bundled for the browser by the package's build into `dist/view/viewRuntime.js`
 * (which the runtime's sources, under `livecmd-source`, read as well).
 */
const BUNDLE = packageFile("dist/view/viewRuntime.js");

let script: string | undefined;

/** The bundled view runtime's text, read on the first view served (it is most of a view's bytes). */
export function viewScript(): string {
  try {
    script ??= readFileSync(BUNDLE, "utf8");
  } catch (error) {
    throw new Error(
      `livecmd: the view runtime is missing at ${BUNDLE.pathname} (${(error as NodeJS.ErrnoException).code}); build the livecmd package (npm run build)`,
    );
  }
  return script;
}
