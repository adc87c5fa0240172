import type * as AjvModule from "ajv";
import type { Ajv, ValidateFunction } from "ajv";
import type * as AjvFormats from "ajv-formats";
import { bundledRequire } from "../bundledRequire.ts";
import type { FieldError, JsonSchema } from "../uri/template.ts";
import { fieldErrorsOf, UNKNOWN_RESULT_FIELD } from "./fieldMessages.ts";

/**
 * Validates a command's arguments against its published `inputSchema`, constraints and formats
 * included (ajv with ajv-formats): one validator for `tools/call`, reads, listens and
 * subscriptions, and the app's own runs, so they pass or fail together. No coercion and no
 * defaults: the handler gets what was sent. ajv loads, and each schema compiles, on its first
 * validation: a server answers `initialize` without them, and compiles only what is called.
 */
export class ArgumentValidator {
  #ajv: Ajv | undefined;
  readonly #compiled = new WeakMap<JsonSchema, ValidateFunction>();

  /** Every field error of `value`, in livecmd's words; `root` names the value as a whole. */
  validate(schema: JsonSchema, value: unknown, root = "arguments", prefix = ""): FieldError[] {
    const validate = this.#compiledFor(schema);
    return validate(value) ? [] : fieldErrorsOf(validate.errors ?? [], root, prefix);
  }

  /** Every field error of a command's result (its JSON form) against its `resultSchema`. */
  validateResult(schema: JsonSchema, value: unknown): FieldError[] {
    const validate = this.#compiledFor(schema);
    return validate(value)
      ? []
      : fieldErrorsOf(validate.errors ?? [], "result", "", UNKNOWN_RESULT_FIELD);
  }

  #compiledFor(schema: JsonSchema): ValidateFunction {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      this.#ajv ??= newAjv();
      validate = this.#ajv.compile(schema);
      this.#compiled.set(schema, validate);
    }
    return validate;
  }
}

/**
 * ajv's options for every schema livecmd validates against, here and in the validators of the
 * request params compiled ahead of time (`sdkAdapter/requestParamsValidators.ts`).
 * verbose: an error carries the value it is about, so a message can say what is wrong with it.
 * validateSchema: the schemas are livecmd's own and the generator's (both checked against the
 * JSON Schema meta-schema by test/unit/schemas-valid.test.ts); compiling the meta-schema on
 * each start would cost more than the first answer.
 */
export const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  validateSchema: false,
  verbose: true,
} as const;

/** ajv and its formats, loaded now (both are CommonJS: `require` keeps `validate` synchronous). */
function newAjv(): Ajv {
  const { Ajv } = bundledRequire("ajv", "ajv") as typeof AjvModule;
  const addFormats = bundledRequire("ajv", "ajv-formats") as typeof AjvFormats;
  const ajv = new Ajv(AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv;
}

let shared: ArgumentValidator | undefined;

/** The one validator of the process: compiled schemas are cached per schema object, whatever app holds it. */
export function argumentValidator(): ArgumentValidator {
  shared ??= new ArgumentValidator();
  return shared;
}
