import type { FieldError } from "../uri/template.ts";

/** Marks an InvalidArguments whichever copy of livecmd made it (an app may load two). */
const BRAND = Symbol.for("livecmd.InvalidArguments");

/**
 * Thrown by a handler to refuse arguments for a reason the schema cannot express, such as one
 * field against another (`to` before `from`): a read answers -32602 with these `data.errors`,
 * `tools/call` an error result naming the fields. A record that does not exist is not one of
 * these: throw an ordinary error for it (-32603 on a read, the message only).
 */
export class InvalidArguments extends Error {
  readonly errors: readonly FieldError[];
  readonly [BRAND] = true;

  constructor(errors: readonly FieldError[]) {
    if (errors.length === 0)
      throw new TypeError("livecmd: InvalidArguments needs at least one { field, message }");
    super(errors.map((error) => `${error.field}: ${error.message}`).join("; "));
    this.name = "InvalidArguments";
    this.errors = errors.map(({ field, message }) => ({
      field: String(field),
      message: String(message),
    }));
  }

  static is(error: unknown): error is InvalidArguments {
    return (
      typeof error === "object" &&
      error !== null &&
      (error as { [BRAND]?: unknown })[BRAND] === true
    );
  }
}
