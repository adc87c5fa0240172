// Argument checks shared by the example's commands. Agents' arguments are already validated
// against the published schema, but the app's own calls are not, and ranges, dates and
// emails are beyond what the schema says.

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function noCustomer(id: number): Error {
  return new Error(`no customer with id ${id}`);
}

/** A calendar date written YYYY-MM-DD (`2025-02-30` is not one). */
export function checkDate(field: string, value: unknown): string {
  if (typeof value !== "string" || !DATE.test(value) || !isCalendarDate(value)) {
    throw new Error(`${field} must be a date as YYYY-MM-DD, got ${show(value)}`);
  }
  return value;
}

export function checkInteger(
  field: string,
  value: unknown,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${field} must be an integer${bounds(min, max)}, got ${show(value)}`);
  }
  return value;
}

export function checkNumber(field: string, value: unknown, min = -Infinity): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    throw new Error(
      `${field} must be a finite number${min === -Infinity ? "" : ` of at least ${min}`}, got ${show(value)}`,
    );
  }
  return value;
}

export function checkBoolean(field: string, value: unknown): boolean {
  if (typeof value !== "boolean")
    throw new Error(`${field} must be true or false, got ${show(value)}`);
  return value;
}

export function checkString(field: string, value: unknown): string {
  if (typeof value !== "string") throw new Error(`${field} must be a string, got ${show(value)}`);
  return value;
}

/** Non-blank text, trimmed. */
export function checkText(field: string, value: unknown): string {
  const text = checkString(field, value).trim();
  if (text === "") throw new Error(`${field} must not be blank`);
  return text;
}

export function checkEmail(field: string, value: unknown): string {
  const email = checkText(field, value);
  if (!EMAIL.test(email))
    throw new Error(`${field} must look like name@example.com, got ${show(value)}`);
  return email;
}

export function checkOneOf<T extends string>(
  field: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (!allowed.includes(value as T))
    throw new Error(`${field} must be one of ${allowed.join(", ")}, got ${show(value)}`);
  return value as T;
}

/** At least one string; duplicates removed. */
export function checkStrings(field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new Error(`${field} must be a non-empty list of strings, got ${show(value)}`);
  return [...new Set(value.map((item, index) => checkString(`${field}[${index}]`, item)))];
}

/** An object with at least one entry, every value a string. */
export function checkStringMap(field: string, value: unknown): Record<string, string> {
  if (
    typeof value !== "object" ||
    value === null ||
    Array.isArray(value) ||
    Object.keys(value).length === 0
  ) {
    throw new Error(
      `${field} must be an object with at least one string value, got ${show(value)}`,
    );
  }
  for (const [key, item] of Object.entries(value)) checkString(`${field}.${key}`, item);
  return value as Record<string, string>;
}

function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10) === value;
}

function bounds(min: number, max: number): string {
  if (max !== Number.MAX_SAFE_INTEGER) return ` from ${min} to ${max}`;
  return min === Number.MIN_SAFE_INTEGER ? "" : ` of at least ${min}`;
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a bigint or a cyclic object
  }
}
