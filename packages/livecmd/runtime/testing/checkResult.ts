import type { App } from "../model/app.ts";
import { engineOf } from "../model/attachedEngine.ts";
import { requireResultMatch } from "../validation/resultMismatch.ts";

/**
 * Throws a `ResultMismatch` naming the command and every bad field when `value` is not what
 * command `name` may return by its `resultSchema` in the app's catalog.json: for a test that runs
 * a command (`app.run(...)`) or reads one over MCP and wants its result held to its return type.
 */
export function checkResult(app: App, name: string, value: unknown): void {
  const { generated } = engineOf(app);
  const entry = generated?.catalog.commands.find((candidate) => candidate.name === name);
  if (!entry) {
    throw new Error(
      generated
        ? `livecmd: app "${app.name}" has no command "${name}" in its catalog.json`
        : `livecmd: app "${app.name}" has no generated catalog; run \`npx livecmd codegen\` and pass defineApp({ generated: { catalog, templates } })`,
    );
  }
  requireResultMatch(entry, value);
}
