import { CATALOG_VERSION, watchToolEntry, type Catalog } from "livecmd/internal";
import type { AppDecl } from "../model.ts";
import { planCommand, type TemplatePlan } from "./planCommand.ts";
import { reused, type Reuse } from "../reuse.ts";

export interface CatalogPlan {
  catalog: Catalog;
  /** Every command that has a template, granted or not (a runtime grant can expose it later). */
  templates: TemplatePlan[];
}

/**
 * Every command's plan, as catalog.json holds it, and the templates the modules are made of.
 * With `reuse`, a command whose analysis was reused keeps its plan (the same objects, which is
 * how later stages know it unchanged).
 */
export function buildCatalog(app: AppDecl, reuse?: Reuse): CatalogPlan {
  const plans = app.commands.map((command) =>
    reused(reuse, command, `plan ${app.name}`, () => planCommand(command, app.name)),
  );
  return {
    catalog: {
      catalogVersion: CATALOG_VERSION,
      app: app.name,
      watchTool: app.watchTool === null ? null : watchToolEntry(app.watchTool),
      commands: plans.map((plan) => plan.entry),
    },
    templates: plans.flatMap((plan) => (plan.template ? [plan.template] : [])),
  };
}
