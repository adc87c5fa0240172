import { byCodeUnit, type JsonSchema, type ParamDecl } from "../model.ts";
import { isStruct } from "livecmd/internal";
import { describeShape, scalarKind, withoutNull, type ScalarKind } from "./scalar.ts";

/** One URI template variable and where its value goes back in the argument list. */
export interface PlannedVariable {
  name: string;
  required: boolean;
  kind: ScalarKind;
  /** The variable's schema as published (null dropped: a URI cannot spell null). */
  schema: JsonSchema;
  /** Index of the parameter it comes from, and the field when that parameter is a struct. */
  param: number;
  field?: string;
}

/** RFC 6570 varchars, narrowed to what is also a plain property name in the generated code. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type VariablePlan =
  { ok: true; variables: PlannedVariable[] } | { ok: false; reason: string };

/**
 * Flattens a command's parameters into scalar variables (RFC 0004: scalars are one variable
 * each; a struct gives its scalar fields, one level deep, in name order), or says why not.
 */
export function planVariables(command: string, params: ParamDecl[]): VariablePlan {
  const variables: PlannedVariable[] = [];
  for (const [index, param] of params.entries()) {
    const planned = paramVariables(command, param, index);
    if (typeof planned === "string") return { ok: false, reason: planned };
    variables.push(...planned);
  }
  const unnamable = variables.find((variable) => !VARIABLE_NAME.test(variable.name));
  if (unnamable) {
    return {
      ok: false,
      reason: `${origin(params, unnamable)} is named "${unnamable.name}", which is not a URI template variable name (letters, digits, "_"), so ${command} is a tool only`,
    };
  }
  const duplicate = findDuplicate(command, params, variables);
  return duplicate ? { ok: false, reason: duplicate } : { ok: true, variables };
}

function paramVariables(
  command: string,
  param: ParamDecl,
  index: number,
): PlannedVariable[] | string {
  const kind = scalarKind(param.schema);
  if (kind)
    return [
      {
        name: param.name,
        required: !param.optional,
        kind,
        schema: withoutNull(param.schema),
        param: index,
      },
    ];
  if (!isStruct(param.schema)) {
    return `argument "${param.name}" (${param.typeText}) is ${describeShape(param.schema)}, which cannot be a URI variable, so ${command} is a tool only`;
  }
  const fields = Object.keys(param.schema.properties).sort(byCodeUnit);
  const variables: PlannedVariable[] = [];
  for (const field of fields) {
    const schema = param.schema.properties[field]!;
    const fieldKind = scalarKind(schema);
    if (!fieldKind) {
      return `argument "${param.name}" (${param.typeText}) has field "${field}", ${describeShape(schema)}; only one level of scalar fields flattens into URI variables, so ${command} is a tool only`;
    }
    const required = !param.optional && param.schema.required.includes(field);
    variables.push({
      name: field,
      required,
      kind: fieldKind,
      schema: withoutNull(schema),
      param: index,
      field,
    });
  }
  return variables;
}

function findDuplicate(
  command: string,
  params: ParamDecl[],
  variables: PlannedVariable[],
): string | undefined {
  const seen = new Map<string, PlannedVariable>();
  for (const variable of variables) {
    const first = seen.get(variable.name);
    if (first) {
      return `two variables are named "${variable.name}" (${origin(params, first)} and ${origin(params, variable)}), so ${command} is a tool only`;
    }
    seen.set(variable.name, variable);
  }
  return undefined;
}

function origin(params: ParamDecl[], variable: PlannedVariable): string {
  const param = params[variable.param]!;
  const argument = `argument "${param.name}" (${param.typeText})`;
  return variable.field === undefined ? argument : `field "${variable.field}" of ${argument}`;
}
