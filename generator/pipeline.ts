import type { Project } from "ts-morph";
import { analyzeApp } from "./analyze/analyzeApp.ts";
import type { AppDecl, Diagnostic, OutputSet } from "./model.ts";
import { buildCatalog, type CatalogPlan } from "./plan/buildCatalog.ts";
import { renderCatalog } from "./render/renderCatalog.ts";
import { renderTemplatesModule } from "./render/renderTemplatesModule.ts";
import { renderUrisModule } from "./render/renderUrisModule.ts";
import { renderVariableTypes } from "./render/renderTypes.ts";
import { renderResultTypes } from "./render/resultTypes.ts";
import { GENERATED_MARK } from "./output/outputFolder.ts";

/** How to regenerate, when nothing more particular is known: the config or the defaults find the app. */
export const DEFAULT_RERUN = "npx livecmd codegen";

export interface CodegenInput {
  /** The app module, relative to `cwd` (e.g. example/app.ts). */
  appFile: string;
  cwd: string;
  /** The command that regenerates, as the generated files' notice tells it; `npx livecmd codegen` when absent. */
  rerun?: string;
}

export type Generation =
  | { ok: true; app: AppDecl; plan: CatalogPlan; outputs: OutputSet }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * discover -> analyze -> plan -> render. The render stage prints the final layout itself (the
 * layout prettier would give it; the tests hold it to that). Pure: returns the files, writes nothing.
 */
export function generate(project: Project, input: CodegenInput): Generation {
  const analysis = analyzeApp(project, input.appFile, input.cwd);
  if (!analysis.ok) return analysis;
  const { app } = analysis;
  const plan = buildCatalog(app);
  const notice = `${GENERATED_MARK} from ${app.file}. Do not edit: change the commands and run \`${input.rerun ?? DEFAULT_RERUN}\`.`;
  const context = { app: app.name, header: `// ${notice}`, templates: plan.templates };
  const outputs = new Map([
    ["catalog.json", renderCatalog(plan.catalog, notice)],
    ["templates.ts", renderTemplatesModule(context)],
    [
      "uris.ts",
      renderUrisModule(
        context,
        renderVariableTypes(plan.templates) + renderResultTypes(plan.templates),
      ),
    ],
  ]);
  return { ok: true, app, plan, outputs };
}
