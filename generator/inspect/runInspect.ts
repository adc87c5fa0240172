import { createProject } from "../discover/createProject.ts";
import { discoverApp } from "../discover/discoverApp.ts";
import { formatDiagnostics } from "../output/formatDiagnostics.ts";
import { buildCatalog } from "../plan/buildCatalog.ts";
import { EXIT } from "../runCodegen.ts";
import { renderInspectTable } from "./renderInspectTable.ts";

export async function runInspect(options: { app: string; cwd: string; log: (text: string) => void }): Promise<number> {
  const discovery = discoverApp(createProject(), options.app, options.cwd);
  if (!discovery.ok) {
    options.log(formatDiagnostics(discovery.diagnostics));
    return EXIT.inputError;
  }
  const { catalog } = buildCatalog(discovery.app);
  options.log(`app "${catalog.app}" (${discovery.app.file}): ${catalog.commands.length} commands, ${catalog.resourceTemplates.length} templates, ${catalog.resources.length} plain resources, ${catalog.tools.length} tools\n`);
  options.log(renderInspectTable(catalog.commands));
  return EXIT.ok;
}
