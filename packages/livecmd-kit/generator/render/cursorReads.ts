import { isPlainConstant } from "livecmd/internal";
import { literal } from "../plan/naming.ts";
import type { TemplatePlan } from "../plan/planCommand.ts";
import type { PlannedVariable } from "../plan/planVariables.ts";
import { ifStatement } from "./layout/ifStatement.ts";

/**
 * The lines (at `indent`) that read a template's variables with `UriCursor`, in URI order: each path segment
 * and each query parameter that is present sets its variable. None, so that its URIs are read
 * strictly only, for a template with a variable `vars.__proto__ = ...` would turn into a
 * prototype, or with an enum constant `oneOf` cannot compare in place (empty, or with a
 * character that is written escaped or splits the URI).
 */
export function cursorReads(template: TemplatePlan, indent: number): string[] {
  const variables = [...template.path, ...template.query];
  if (!variables.every(readsInPlace)) return [];
  return [
    ...template.path.map((variable) =>
      ifStatement(indent, "cursor.segment()", assignment(variable)),
    ),
    ...template.query.map((variable) =>
      ifStatement(indent, `cursor.param(${literal(variable.name)})`, assignment(variable)),
    ),
  ];
}

function readsInPlace(variable: PlannedVariable): boolean {
  if (variable.name === "__proto__") return false;
  return variable.kind !== "enum" || (variable.schema.enum as string[]).every(isPlainConstant);
}

function assignment(variable: PlannedVariable): string {
  const read =
    variable.kind === "enum"
      ? `oneOf([${(variable.schema.enum as string[]).map(literal).join(", ")}])`
      : `${variable.kind}()`;
  return `vars.${variable.name} = cursor.${read};`;
}
