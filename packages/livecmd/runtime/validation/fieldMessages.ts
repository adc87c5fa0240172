import type { ErrorObject } from "ajv";
import type { FieldError } from "../uri/template.ts";

/** What a value of each JSON type is called in a message. */
const TYPE_NOUNS: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  null: "null",
};

/** What a value of each format ajv-formats checks is called in a message. */
const FORMAT_NOUNS: Record<string, string> = {
  date: "a date written YYYY-MM-DD",
  time: "a time such as 09:30:00Z",
  "date-time": "a date and time such as 2025-01-31T09:30:00Z",
  "iso-time": "a time such as 09:30:00",
  "iso-date-time": "a date and time such as 2025-01-31T09:30:00",
  duration: "an ISO 8601 duration such as P1D",
  uri: "an absolute URI",
  "uri-reference": "a URI reference",
  "uri-template": "a URI template",
  url: "a URL",
  email: "an email address",
  hostname: "a host name",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  regex: "a regular expression",
  uuid: "a UUID",
  "json-pointer": "a JSON pointer",
  "relative-json-pointer": "a relative JSON pointer",
  byte: "base64 text",
  int32: "a 32-bit integer",
  int64: "a 64-bit integer",
  float: "a float",
  double: "a double",
};

/** What a field the schema does not have is told, in arguments (the default) and in results. */
export const UNKNOWN_ARGUMENT = "is not a parameter of this command";
export const UNKNOWN_RESULT_FIELD = "is not in the command's result type";

/**
 * ajv's errors as livecmd's plain sentences, one per field: `{ field: "per_page", message: "must
 * be at most 100" }`. `root` names the value itself when an error is about it as a whole (the
 * arguments object, or a request's `params`); `prefix` goes before every other field's path.
 */
export function fieldErrorsOf(
  errors: readonly ErrorObject[],
  root: string,
  prefix = "",
  unknownField = UNKNOWN_ARGUMENT,
): FieldError[] {
  const seen = new Set<string>();
  const fieldErrors: FieldError[] = [];
  for (const error of errors) {
    if (isBranchNoise(error)) continue;
    const fieldError = fieldErrorOf(error, root, prefix, unknownField);
    const key = `${fieldError.field}\u0000${fieldError.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fieldErrors.push(fieldError);
  }
  return fieldErrors;
}

/**
 * A nullable value's `anyOf: [schema, { type: "null" }]`, and the `if` that chose a `then` or
 * `else`: the branch's own errors say what is wrong.
 */
function isBranchNoise(error: ErrorObject): boolean {
  return (
    error.keyword === "anyOf" ||
    error.keyword === "if" ||
    (error.keyword === "type" && (error.params as { type?: unknown }).type === "null")
  );
}

function fieldErrorOf(
  error: ErrorObject,
  root: string,
  prefix: string,
  unknownField: string,
): FieldError {
  const path = error.instancePath.split("/").slice(1).map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  const field = (names: string[]) => (names.length === 0 ? root : prefix + names.join("."));
  switch (error.keyword) {
    case "required":
      return { field: field([...path, String(params.missingProperty)]), message: "is required" };
    case "additionalProperties":
      return {
        field: field([...path, String(params.additionalProperty)]),
        message: unknownField,
      };
    case "format":
      return { field: field(path), message: formatMessage(String(params.format), error.data) };
    default:
      return { field: field(path), message: messageOf(error.keyword, params) };
  }
}

function messageOf(keyword: string, params: Record<string, unknown>): string {
  switch (keyword) {
    case "type":
      return `must be ${String(params.type)
        .split(",")
        .map((type) => TYPE_NOUNS[type] ?? type)
        .join(" or ")}`;
    case "enum":
      return `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${BOUNDS[keyword]} ${String(params.limit)}`;
    case "multipleOf":
      return `must be a multiple of ${String(params.multipleOf)}`;
    case "minLength":
      return `must be at least ${characters(params.limit)} long`;
    case "maxLength":
      return `must be at most ${characters(params.limit)} long`;
    case "minItems":
      return `must hold at least ${items(params.limit)}`;
    case "maxItems":
      return `must hold at most ${items(params.limit)}`;
    case "pattern":
      return `must match the pattern ${String(params.pattern)}`;
    default:
      return `does not satisfy ${keyword}`;
  }
}

/**
 * What is wrong with a value its format refuses. A date written as the format asks that names no
 * day (`2026-02-30`) is told so: "must be a date written YYYY-MM-DD" would send its writer
 * looking for a typo that is not there.
 */
function formatMessage(format: string, value: unknown): string {
  const calendar =
    CALENDAR_FORMATS.has(format) && typeof value === "string" && notInCalendar(value);
  if (calendar) return `is not a date in the calendar (${calendar})`;
  return `must be ${FORMAT_NOUNS[format] ?? `in the format ${format}`}`;
}

/** Formats whose value starts with a date, `YYYY-MM-DD`. */
const CALENDAR_FORMATS = new Set(["date", "date-time", "iso-date-time"]);

const MONTHS = [
  ...["January", "February", "March", "April", "May", "June", "July"],
  ...["August", "September", "October", "November", "December"],
];

/** Why a value that starts `YYYY-MM-DD` names no day of the (proleptic Gregorian) calendar; "" when it does, or is not written so. */
function notInCalendar(value: string): string {
  const written = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/i.exec(value);
  if (!written) return "";
  const [year, month, day] = written.slice(1).map(Number) as [number, number, number];
  if (month < 1 || month > 12) return `there is no month ${written[2]}`;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (day < 1) return `there is no day ${written[3]}`;
  return day > days ? `${MONTHS[month - 1]} ${written[1]} has ${days} days` : "";
}

const BOUNDS = {
  minimum: "at least",
  maximum: "at most",
  exclusiveMinimum: "greater than",
  exclusiveMaximum: "less than",
};

function characters(count: unknown): string {
  return count === 1 ? "1 character" : `${String(count)} characters`;
}

function items(count: unknown): string {
  return count === 1 ? "1 item" : `${String(count)} items`;
}

function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}
