import type { Catalog } from "../../runtime/catalog.ts";
import type { AppDecl } from "../model.ts";
import { planCommand, type TemplatePlan } from "./planCommand.ts";

export interface CatalogPlan {
  catalog: Catalog;
  /** Every command that has a template, granted or not (a runtime grant can expose it later). */
  templates: TemplatePlan[];
}

/** The listings as the server will send them: granted commands only, in name order. */
export function buildCatalog(app: AppDecl): CatalogPlan {
  const plans = app.commands.map((command) => planCommand(command, app.name));
  const granted = plans.filter((plan) => plan.entry.granted).map((plan) => plan.entry);
  const optionalTitle = (title: string | undefined) => (title === undefined ? {} : { title });
  return {
    catalog: {
      app: app.name,
      resources: granted.flatMap((entry) =>
        entry.resource === null
          ? []
          : [
              {
                uri: entry.resource,
                name: entry.name,
                ...optionalTitle(entry.title),
                description: entry.description,
                mimeType: entry.mimeType,
              },
            ],
      ),
      resourceTemplates: granted.flatMap((entry) =>
        entry.template === null
          ? []
          : [
              {
                uriTemplate: entry.template,
                name: entry.name,
                ...optionalTitle(entry.title),
                description: entry.description,
                mimeType: entry.mimeType,
              },
            ],
      ),
      tools: granted.map((entry) => ({
        name: entry.name,
        ...optionalTitle(entry.title),
        description: entry.description,
        inputSchema: entry.inputSchema,
      })),
      commands: plans.map((plan) => plan.entry),
    },
    templates: plans.flatMap((plan) => (plan.template ? [plan.template] : [])),
  };
}
