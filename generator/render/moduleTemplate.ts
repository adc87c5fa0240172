import { readFileSync } from "node:fs";
import Handlebars from "handlebars";
import type { TemplatePlan } from "../plan/planCommand.ts";

export interface ModuleContext {
  app: string;
  header: string;
  templates: TemplatePlan[];
}

/**
 * One of templates/*.hbs, compiled. The renderers fill each placeholder with text already laid
 * out for where it sits in the template (its indent and column), so those numbers in the
 * renderers follow the templates; the prettier oracle test fails if they drift apart.
 */
export function compileModuleTemplate(file: string): HandlebarsTemplateDelegate {
  return Handlebars.create().compile(
    readFileSync(new URL(`../../templates/${file}`, import.meta.url), "utf8"),
    {
      noEscape: true,
      strict: true,
    },
  );
}
