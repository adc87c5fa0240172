import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { JsonSchema, FieldError } from "../uri/template.ts";

/**
 * Validates `tools/call` arguments, and the arguments a read rebuilt from a URI, against the
 * command's published `inputSchema`: one validator, so a read and a call with the same values
 * pass or fail together. No coercion and no defaults: the handler gets what was sent.
 */
export class ArgumentValidator {
  readonly #ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
    validateFormats: false,
  });
  readonly #compiled = new WeakMap<JsonSchema, ValidateFunction>();

  validate(schema: JsonSchema, value: unknown): FieldError[] {
    const validate = this.#compiledFor(schema);
    return validate(value) ? [] : (validate.errors ?? []).map(fieldErrorOf);
  }

  #compiledFor(schema: JsonSchema): ValidateFunction {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = this.#ajv.compile(schema);
      this.#compiled.set(schema, validate);
    }
    return validate;
  }
}

function fieldErrorOf(error: ErrorObject): FieldError {
  const path = error.instancePath.split("/").slice(1).map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required")
    return { field: [...path, String(params.missingProperty)].join("."), message: "is required" };
  if (error.keyword === "additionalProperties") {
    return {
      field: [...path, String(params.additionalProperty)].join("."),
      message: "is not a parameter of this command",
    };
  }
  if (error.keyword === "enum") {
    const allowed = (params.allowedValues as unknown[])
      .map((value) => JSON.stringify(value))
      .join(", ");
    return { field: path.join(".") || "arguments", message: `must be one of ${allowed}` };
  }
  return {
    field: path.join(".") || "arguments",
    message: error.message ?? `fails ${error.keyword}`,
  };
}

function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}
