import { openAppProject } from "../discover/createProject.ts";
import { formatDiagnostics } from "../output/formatDiagnostics.ts";
import { isViewListing, listings, type ToolEntry } from "livecmd/internal";
import { buildCatalog } from "../plan/buildCatalog.ts";
import { discoverAndAnalyze } from "../pipeline.ts";
import { EXIT } from "../runCodegen.ts";
import { hintsText, renderInspectTable } from "./renderInspectTable.ts";

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
  const listed = listings(catalog.commands, (entry) => entry.granted, catalog.watchTool);
  const views = listed.resources.filter(isViewListing).length;
  const plain = listed.resources.length - views;
  options.log(
    `app "${catalog.app}" (${analysis.app.file}): ${catalog.commands.length} commands, ${listed.resourceTemplates.length} templates, ${plain} plain resources, ${listed.tools.length} tools${views > 0 ? `, ${views} live views` : ""}\n`,
  );
  options.log(renderInspectTable(catalog.commands));
  options.log(`\n${watchToolLine(catalog.watchTool, listed.resourceTemplates.length + plain > 0)}`);
  return EXIT.ok;
}

/** The watch tool as an agent gets it: listed, to whom, and with which hints; or why not. */
function watchToolLine(watchTool: ToolEntry | null, readable: boolean): string {
  if (!watchTool) return "watch tool: none (agent.watchTool: false)";
  return readable
    ? `watch tool: ${watchTool.name} (${hintsText(watchTool.annotations)}), listed to every principal that may read a resource or template`
    : `watch tool: ${watchTool.name}, not listed: no granted command can be read`;
}
