import { openAppProject } from "../discover/createProject.ts";
import { formatDiagnostics } from "../output/formatDiagnostics.ts";
import { listings } from "livecmd/internal";
import { buildCatalog } from "../plan/buildCatalog.ts";
import { discoverAndAnalyze } from "../pipeline.ts";
import { EXIT } from "../runCodegen.ts";
import { renderInspectTable } from "./renderInspectTable.ts";

export interface InspectOptions {
  app: string;
  tsconfig?: string;
  cwd: string;
  log: (text: string) => void;
}

export async function runInspect(options: InspectOptions): Promise<number> {
  const opened = openAppProject(options);
  if (!opened.ok) {
    options.log(`livecmd inspect: ${opened.problem}`);
    return EXIT.inputError;
  }
  const analysis = discoverAndAnalyze(opened.project, { appFile: options.app, cwd: options.cwd });
  if (!analysis.ok) {
    options.log(formatDiagnostics(analysis.diagnostics));
    return EXIT.inputError;
  }
  const { catalog } = buildCatalog(analysis.app);
  const listed = listings(catalog.commands, (entry) => entry.granted);
  options.log(
    `app "${catalog.app}" (${analysis.app.file}): ${catalog.commands.length} commands, ${listed.resourceTemplates.length} templates, ${listed.resources.length} plain resources, ${listed.tools.length} tools\n`,
  );
  options.log(renderInspectTable(catalog.commands));
  return EXIT.ok;
}
