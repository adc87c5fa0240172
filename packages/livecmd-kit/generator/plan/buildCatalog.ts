import { CATALOG_VERSION, watchToolEntry, type Catalog } from "livecmd/internal";
import type { AppDecl } from "../model.ts";
import { planCommand, type TemplatePlan } from "./planCommand.ts";

export interface CatalogPlan {
  catalog: Catalog;
  /** Every command that has a template, granted or not (a runtime grant can expose it later). */
  templates: TemplatePlan[];
}

/** Every command's plan, as catalog.json holds it, and the templates the modules are made of. */
export function buildCatalog(app: AppDecl): CatalogPlan {
  const plans = app.commands.map((command) => planCommand(command, app.name));
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
