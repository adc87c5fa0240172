import type { CommandEntry } from "../model/catalog.ts";
import type { FieldError } from "../uri/template.ts";
import { argumentValidator } from "./argumentValidator.ts";

/**
 * A command returned something its `resultSchema` (its return type, as codegen read it) does not
 * allow: the code and the catalog disagree, or a cast or a database column lied about a type.
 */
export class ResultMismatch extends Error {
  readonly command: string;
  readonly errors: readonly FieldError[];

  constructor(command: string, errors: readonly FieldError[]) {
    const fields = errors.map((error) => `${error.field}: ${error.message}`).join("; ");
    super(
      `livecmd: ${command} returned a result that does not match its result type (${fields}); fix what it returns, or its return type and run \`npx livecmd codegen\``,
    );
    this.name = "ResultMismatch";
    this.command = command;
    this.errors = errors;
  }
}

/**
 * The field errors of `result` against the command's `resultSchema`, checked in its JSON form:
 * what a client receives (`undefined` is `null`, a `Date` its ISO string, undefined fields gone).
 */
export function resultErrors(entry: CommandEntry, result: unknown): FieldError[] {
  const sent: unknown = JSON.parse(JSON.stringify(result ?? null));
  return argumentValidator().validateResult(entry.resultSchema, sent);
}

/** Throws a `ResultMismatch` naming the command and every bad field, if there is one. */
export function requireResultMatch(entry: CommandEntry, result: unknown): void {
  const errors = resultErrors(entry, result);
  if (errors.length > 0) throw new ResultMismatch(entry.name, errors);
}
