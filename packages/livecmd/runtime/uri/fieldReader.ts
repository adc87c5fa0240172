import type { Int } from "./int.ts";
import type { FieldError, ParseResult, WithoutUndefined } from "./template.ts";
import { withoutUndefined } from "./pickDefined.ts";
import { quoteValue } from "./quote.ts";
import { integerValue, isJsonNumberSyntax } from "./scalarSyntax.ts";

/**
 * Converts decoded URI values by their variable's schema (docs/mcp.md, "Reading a URI back", the conversion table),
 * collecting one error per bad field instead of stopping at the first.
 *
 * Each method takes the field name and the raw value; an absent (`undefined`) raw value stays
 * `undefined`. A bad value is recorded and read as `undefined`; `result` then returns the
 * errors instead of the variables, so that placeholder is never seen.
 */
export class FieldReader {
  private errors: FieldError[] | undefined;

  /** `errors`: what splitting the URI found already; they come first in the result. */
  constructor(errors?: readonly FieldError[]) {
    if (errors && errors.length > 0) this.errors = [...errors];
  }

  /** `-?(0|[1-9][0-9]*)` within ±(2^53-1); `-0` reads as -0. */
  integer(field: string, raw: string): Int;
  integer(field: string, raw: string | undefined): Int | undefined;
  integer(field: string, raw: string | undefined): Int | undefined {
    if (raw === undefined) return undefined;
    const value = integerValue(raw);
    if (Number.isNaN(value)) return this.reject(field, "must be an integer like 12", raw);
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
      return this.reject(
        field,
        `must be an integer between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
        raw,
      );
    }
    return value as Int;
  }

  /** A JSON number that is finite as a double; `-0` reads as -0. */
  number(field: string, raw: string): number;
  number(field: string, raw: string | undefined): number | undefined;
  number(field: string, raw: string | undefined): number | undefined {
    if (raw === undefined) return undefined;
    if (!isJsonNumberSyntax(raw))
      return this.reject(field, "must be a number like 1.5 or -2e3 (JSON syntax)", raw);
    const value = Number(raw);
    if (!Number.isFinite(value))
      return this.reject(field, `must be a number within ±${Number.MAX_VALUE}`, raw);
    return value;
  }

  /** Exactly `true` or `false`. */
  boolean(field: string, raw: string): boolean;
  boolean(field: string, raw: string | undefined): boolean | undefined;
  boolean(field: string, raw: string | undefined): boolean | undefined {
    if (raw === undefined) return undefined;
    if (raw === "true") return true;
    if (raw === "false") return false;
    return this.reject(field, "must be true or false", raw);
  }

  /** Any value, the empty string included: `splitUri` has already made sure it is valid UTF-8. */
  string(field: string, raw: string): string;
  string(field: string, raw: string | undefined): string | undefined;
  string(_field: string, raw: string | undefined): string | undefined {
    return raw;
  }

  /** Exactly one of `constants`, case-sensitively. */
  enum<const T extends string>(field: string, raw: string, constants: readonly T[]): T;
  enum<const T extends string>(
    field: string,
    raw: string | undefined,
    constants: readonly T[],
  ): T | undefined;
  enum<const T extends string>(
    field: string,
    raw: string | undefined,
    constants: readonly T[],
  ): T | undefined {
    if (raw === undefined) return undefined;
    if ((constants as readonly string[]).includes(raw)) return raw as T;
    const listed = constants.map((constant) => JSON.stringify(constant)).join(", ");
    return this.reject(field, `must be one of ${listed}`, raw, caseHint(raw, constants));
  }

  /**
   * The variables without their `undefined` entries, or every error recorded so far with the
   * variables that did convert.
   */
  result<V extends object>(vars: V): ParseResult<WithoutUndefined<V>> {
    const read = withoutUndefined(vars);
    if (this.errors) return { ok: false, errors: this.errors, vars: read };
    return { ok: true, vars: read };
  }

  private reject(field: string, expected: string, raw: string, hint = ""): undefined {
    // The field is told beside the message (`field: message`), as a schema's errors are.
    const message = `${expected}; got ${quoteValue(raw)}${hint}`;
    (this.errors ??= []).push({ field, message });
    return undefined;
  }
}

/** Points at the constant a value only misses by letter case, the likeliest slip. */
function caseHint(raw: string, constants: readonly string[]): string {
  const lower = raw.toLowerCase();
  const match = constants.find((constant) => constant.toLowerCase() === lower);
  return match === undefined ? "" : ` (did you mean ${JSON.stringify(match)}?)`;
}
