import { readFileSync } from "node:fs";
import Handlebars from "handlebars";
import type { TemplatePlan } from "../plan/planCommand.ts";
import type { Placement } from "./layout/layOut.ts";

export interface ModuleContext {
  app: string;
  header: string;
  templates: TemplatePlan[];
}

/**
 * One of templates/*.hbs, compiled, and where each of its placeholders sits. A placeholder
 * stands for a whole syntactic unit (a statement, a property, a comment) that starts its line:
 * the renderers lay it out at its `placement`, read off the template source, so the templates
 * alone decide indents and what follows each unit on its line.
 */
export interface ModuleTemplate<View> {
  render(view: View): string;
  /** Where `{{name}}` sits: its line's indent, and the text after it on the line. */
  placement(name: string): Placement;
}

/** `{{name}}` or `{{{name}}}`; block helpers (`#`, `/`, `else`) and comments (`!`) are not placeholders. */
const MUSTACHE = /\{\{\{?\s*([^#/!\s{}][^\s{}]*)\s*\}?\}\}/g;

export function compileModuleTemplate<View>(file: string): ModuleTemplate<View> {
  return moduleTemplateOf(
    file,
    readFileSync(new URL(`../../templates/${file}`, import.meta.url), "utf8"),
  );
}

/** The template `source` (named `file` in errors); throws for a placeholder that does not start its line. */
export function moduleTemplateOf<View>(file: string, source: string): ModuleTemplate<View> {
  const placements = placementsIn(file, source);
  const render = Handlebars.create().compile<View>(source, { noEscape: true, strict: true });
  return {
    render: (view) => render(view),
    placement(name) {
      const placement = placements.get(name);
      if (!placement) throw new Error(`livecmd: templates/${file} has no placeholder {{${name}}}`);
      return placement;
    },
  };
}

/** Every placeholder's placement; a placeholder with text before it on its line is an error. */
function placementsIn(file: string, source: string): Map<string, Placement> {
  const placements = new Map<string, Placement>();
  source.split("\n").forEach((line, index) => {
    for (const match of line.matchAll(MUSTACHE)) {
      const name = match[1]!;
      const before = line.slice(0, match.index);
      if (before.trim() !== "") {
        throw new Error(
          `livecmd: templates/${file}:${index + 1}: {{${name}}} has text before it on its line; a placeholder stands for a whole unit that starts its line`,
        );
      }
      const placement = {
        indent: before.length,
        column: before.length,
        after: line.slice(match.index + match[0].length),
      };
      const earlier = placements.get(name);
      if (earlier && (earlier.indent !== placement.indent || earlier.after !== placement.after)) {
        throw new Error(
          `livecmd: templates/${file}:${index + 1}: {{${name}}} sits in two different places; give each place its own name`,
        );
      }
      placements.set(name, placement);
    }
  });
  return placements;
}
