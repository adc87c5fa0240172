import { createProject } from "../discover/createProject.ts";
import { analyzeApp } from "../analyze/analyzeApp.ts";
import { formatDiagnostics } from "../output/formatDiagnostics.ts";
import { buildCatalog } from "../plan/buildCatalog.ts";
import { EXIT } from "../runCodegen.ts";
import { renderInspectTable } from "./renderInspectTable.ts";

export async function runInspect(options: { app: string; cwd: string; log: (text: string) => void }): Promise<number> {
  const analysis = analyzeApp(createProject(), options.app, options.cwd);
  if (!analysis.ok) {
    options.log(formatDiagnostics(analysis.diagnostics));
    return EXIT.inputError;
  }
  const { catalog } = buildCatalog(analysis.app);
  options.log(`app "${catalog.app}" (${analysis.app.file}): ${catalog.commands.length} commands, ${catalog.resourceTemplates.length} templates, ${catalog.resources.length} plain resources, ${catalog.tools.length} tools\n`);
  options.log(renderInspectTable(catalog.commands));
  return EXIT.ok;
}
