import path from "node:path";
import type { Project } from "ts-morph";
import { analyzeApp, sortDiagnostics } from "./analyze/analyzeApp.ts";
import { discoverApp } from "./discover/discoverApp.ts";
import { rootedAt } from "./discover/locate.ts";
import type { AppDecl, Diagnostic, OutputSet } from "./model.ts";
import { GENERATED_MARK } from "./output/outputFolder.ts";
import { buildCatalog, type CatalogPlan } from "./plan/buildCatalog.ts";
import { planSkill, type SkillPlan } from "./plan/planSkill.ts";
import { renderCatalog } from "./render/renderCatalog.ts";
import { renderSkill } from "./render/skill/renderSkill.ts";
import { renderTemplatesModule } from "./render/renderTemplatesModule.ts";
import { renderUrisModule } from "./render/renderUrisModule.ts";
import type { Reuse } from "./reuse.ts";

/** How to regenerate, when nothing more particular is known: the config or the defaults find the app. */
export const DEFAULT_RERUN = "npx livecmd codegen";

export interface CodegenInput {
  /** The app module, relative to `cwd` (e.g. example/app.ts). */
  appFile: string;
  /** The project's root: every path codegen reports or writes into its output is relative to it. */
  cwd: string;
  /** The command that regenerates, as the generated files' notice tells it; `npx livecmd codegen` when absent. */
  rerun?: string;
}

export type Generation =
  | { ok: true; app: AppDecl; plan: CatalogPlan; outputs: OutputSet }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * The whole of codegen but writing: discover -> analyze -> plan -> render. Each stage hands the
 * next plain data (ts-morph stays in discover and analyze); the last, output/, writes or checks
 * what this returns (`runCodegen.ts`). Pure: returns the files, writes nothing. With `reuse`
 * (`codegen --watch`), every stage keeps what it made last time for the commands an edit cannot
 * have changed, and works only on the others.
 */
export function generate(project: Project, input: CodegenInput, reuse?: Reuse): Generation {
  const analysis = discoverAndAnalyze(project, input, reuse);
  if (!analysis.ok) return analysis;
  const { app } = analysis;
  const plan = buildCatalog(app, reuse);
  const skill = planSkill(app, plan, reuse);
  const rerun = input.rerun ?? DEFAULT_RERUN;
  return { ok: true, app, plan, outputs: render(app, plan, skill, rerun, reuse) };
}

/** discover -> analyze: the app's commands as plain data, or every problem found on the way. */
export function discoverAndAnalyze(
  project: Project,
  input: Pick<CodegenInput, "appFile" | "cwd">,
  reuse?: Reuse,
): { ok: true; app: AppDecl } | { ok: false; diagnostics: Diagnostic[] } {
  rootedAt(project, input.cwd);
  const discovered = discoverApp(project, path.resolve(input.cwd, input.appFile), reuse);
  if (!discovered.app) return { ok: false, diagnostics: discovered.diagnostics };
  const analysis = analyzeApp(discovered.app, reuse);
  const diagnostics = [...discovered.diagnostics, ...analysis.diagnostics];
  if (diagnostics.length > 0) return { ok: false, diagnostics: sortDiagnostics(diagnostics) };
  return { ok: true, app: analysis.app };
}

/** render: the plans as the exact bytes of each generated file, in their final layout. */
function render(
  app: AppDecl,
  plan: CatalogPlan,
  skill: SkillPlan,
  rerun: string,
  reuse: Reuse | undefined,
): OutputSet {
  const notice = `${GENERATED_MARK} from ${app.file}. Do not edit: change the commands and run \`${rerun}\`.`;
  const context = { app: app.name, header: `// ${notice}`, templates: plan.templates, reuse };
  return new Map([
    ["catalog.json", renderCatalog(plan.catalog, notice, reuse)],
    ...renderSkill(skill, notice, reuse),
    ["templates.ts", renderTemplatesModule(context)],
    ["uris.ts", renderUrisModule(context)],
  ]);
}
