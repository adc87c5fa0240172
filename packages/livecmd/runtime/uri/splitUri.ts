import type { FieldError } from "./template.ts";
import { baseMismatch, startsWithBase } from "./matchBase.ts";
import { DecodeFailure, percentDecode } from "./percentDecode.ts";
import { quoteValue } from "./quote.ts";
import { RawCharLog } from "./rawChars.ts";
import {
  CHAR_CLASS,
  CLASS_AMPERSAND,
  CLASS_EQUALS,
  CLASS_HASH,
  CLASS_MUST_ENCODE,
  CLASS_PERCENT,
  CLASS_PLAIN,
  CLASS_QUESTION,
  CLASS_SLASH,
  QUESTION,
} from "./uriChars.ts";
import { MAX_URI_LENGTH, tooLongError, exceedsUtf8Length } from "./uriLength.ts";

/**
 * An expanded URI taken apart and percent-decoded, before conversion by schema. Neither record
 * inherits from Object.prototype, and each holds only names the template declares, so
 * `__proto__` or `constructor` in a URI is a name like any other. An empty record may be shared
 * and frozen: both are read-only.
 */
export interface UriParts<P extends string = string, Q extends string = string> {
  /** The decoded segment of every path variable. */
  readonly path: Readonly<Record<P, string>>;
  /** The decoded value of every query parameter present; a null-prototype object. */
  readonly query: Readonly<{ [K in Q]?: string }>;
}

/**
 * A split URI. A URI with mistakes still gives the values that did split cleanly, as long as it
 * names this template with the right number of segments, so conversion can report its errors
 * along with the structural ones: a typo'd parameter and a bad value in one answer.
 */
export type SplitResult<P extends string, Q extends string> =
  | { ok: true; parts: UriParts<P, Q>; errors?: undefined }
  | { ok: false; errors: FieldError[]; parts: UriParts<P, Q> }
  | { ok: false; errors: FieldError[]; parts: undefined };

/**
 * Takes an expanded URI apart strictly (docs/mcp.md, "Reading a URI back"): `base`, then one
 * `/segment` per name in `pathNames`, in order, then an optional form query whose names must be
 * in `queryNames`. Collects every error it can; never throws.
 *
 * `base` is the template's fixed prefix, e.g. `"app://orders_between"`, and must be ASCII.
 * Path variables are given by name rather than count because errors in a segment name its field.
 */
export function splitUri<const P extends string, const Q extends string>(
  uri: string,
  base: string,
  pathNames: readonly P[],
  queryNames: readonly Q[],
): SplitResult<P, Q> {
  if (uri.length > MAX_URI_LENGTH) return { ok: false, errors: [tooLongError()], parts: undefined };
  const result = new Splitter<P, Q>(uri, base, pathNames, queryNames).split();
  // A URI that splits is ASCII, so its length is its size in bytes; only a failed one can
  // still be too long, and then the length error replaces the others.
  if (!result.ok && uri.length * 3 > MAX_URI_LENGTH && exceedsUtf8Length(uri, MAX_URI_LENGTH)) {
    return { ok: false, errors: [tooLongError()], parts: undefined };
  }
  return result;
}

/** Stands for every empty record: many templates have no path, and many URIs no query. */
const EMPTY_RECORD: Readonly<Record<string, string>> = Object.freeze(
  Object.create(null) as Record<string, string>,
);

/**
 * The prototype of path records: like a null prototype, it keeps `__proto__` an ordinary key
 * and inherits nothing, but V8 keeps objects built on it fast, where it turns null-prototype
 * ones into hash tables (a third of the cost of a typical split).
 */
const PATH_PROTOTYPE: object = EMPTY_RECORD;

class Splitter<P extends string, Q extends string> {
  private readonly path: Record<P, string>;
  private query = EMPTY_RECORD as { [K in Q]?: string };
  private errors: FieldError[] | undefined;
  /** Held back until the segments are counted: with the wrong count they name the wrong fields. */
  private segmentErrors: FieldError[] | undefined;
  private rawChars: RawCharLog | undefined;
  private repeatedNames: Set<string> | undefined;
  private segmentCount = 0;

  constructor(
    private readonly uri: string,
    private readonly base: string,
    private readonly pathNames: readonly P[],
    private readonly queryNames: readonly Q[],
  ) {
    this.path = (pathNames.length === 0 ? EMPTY_RECORD : Object.create(PATH_PROTOTYPE)) as Record<
      P,
      string
    >;
  }

  split(): SplitResult<P, Q> {
    const { uri, base } = this;
    let schemeError: FieldError | undefined;
    if (!startsWithBase(uri, base)) {
      const mismatch = baseMismatch(uri, base);
      if (!mismatch.readable) return { ok: false, errors: [mismatch.error], parts: undefined };
      schemeError = mismatch.error;
    }
    let i = this.readPath(base.length);
    if (i < uri.length && uri.charCodeAt(i) === QUESTION) i = this.readQuery(i + 1);
    if (i < uri.length) {
      this.fail(
        "uri",
        `the URI has a fragment at position ${i}; remove it, or write a literal "#" as %23`,
      );
    }
    if (!schemeError && !this.rawChars && !this.errors) {
      return { ok: true, parts: { path: this.path, query: this.query } };
    }
    const errors = schemeError ? [schemeError] : [];
    if (this.rawChars) errors.push(...this.rawChars.errors());
    if (this.errors) errors.push(...this.errors);
    if (this.segmentCount !== this.pathNames.length) return { ok: false, errors, parts: undefined };
    return { ok: false, errors, parts: partsWithout(errors, this.path, this.query) };
  }

  /** Reads `/segment`s from `start`; returns where the query or fragment begins, or the end. */
  private readPath(start: number): number {
    const uri = this.uri;
    const n = uri.length;
    let segmentStart = -1;
    let escaped = false;
    let i = start;
    for (; i < n; i++) {
      const c = uri.charCodeAt(i);
      const kind = c < 128 ? CHAR_CLASS[c]! : CLASS_MUST_ENCODE;
      if (kind === CLASS_PLAIN) continue;
      if (kind === CLASS_SLASH) {
        if (segmentStart >= 0) this.endSegment(segmentStart, i, escaped);
        segmentStart = i + 1;
        escaped = false;
      } else if (kind === CLASS_PERCENT) escaped = true;
      else if (kind === CLASS_MUST_ENCODE) i += this.rawChar(i) - 1;
      else if (kind === CLASS_QUESTION || kind === CLASS_HASH) break;
    }
    if (segmentStart >= 0) this.endSegment(segmentStart, i, escaped);
    this.checkSegmentCount();
    return i;
  }

  private endSegment(start: number, end: number, escaped: boolean): void {
    const name = this.pathNames[this.segmentCount++];
    if (name === undefined) return;
    if (start === end) {
      this.segmentError(name, "is empty; every path segment needs a value");
      return;
    }
    const value = escaped ? percentDecode(this.uri, start, end) : this.uri.slice(start, end);
    if (value instanceof DecodeFailure) this.segmentError(name, value.describe());
    else this.path[name] = value;
  }

  private segmentError(field: string, message: string): void {
    (this.segmentErrors ??= []).push({ field, message });
  }

  private checkSegmentCount(): void {
    const expected = this.pathNames.length;
    if (this.segmentCount === expected) {
      if (this.segmentErrors) (this.errors ??= []).push(...this.segmentErrors);
      return;
    }
    this.fail("uri", segmentCountMessage(this.pathNames, this.base, this.segmentCount));
  }

  /** Reads `name=value` parameters from `start`; returns where the fragment begins, or the end. */
  private readQuery(start: number): number {
    const uri = this.uri;
    const n = uri.length;
    let paramStart = start;
    let equals = -1;
    let nameEscaped = false;
    let valueEscaped = false;
    let i = start;
    for (; i < n; i++) {
      const c = uri.charCodeAt(i);
      const kind = c < 128 ? CHAR_CLASS[c]! : CLASS_MUST_ENCODE;
      if (kind === CLASS_PLAIN) continue;
      if (kind === CLASS_AMPERSAND) {
        this.endParam(paramStart, equals, i, nameEscaped, valueEscaped);
        paramStart = i + 1;
        equals = -1;
        nameEscaped = valueEscaped = false;
      } else if (kind === CLASS_EQUALS) {
        if (equals < 0) equals = i;
      } else if (kind === CLASS_PERCENT) {
        if (equals < 0) nameEscaped = true;
        else valueEscaped = true;
      } else if (kind === CLASS_MUST_ENCODE) i += this.rawChar(i) - 1;
      else if (kind === CLASS_HASH) break;
    }
    this.endParam(paramStart, equals, i, nameEscaped, valueEscaped);
    return i;
  }

  private endParam(
    start: number,
    equals: number,
    end: number,
    nameEscaped: boolean,
    valueEscaped: boolean,
  ): void {
    if (start === end) {
      this.fail(
        "uri",
        `the query has an empty parameter at position ${start}; remove the stray "&" or "?"`,
      );
      return;
    }
    const nameEnd = equals < 0 ? end : equals;
    const written = nameEscaped
      ? percentDecode(this.uri, start, nameEnd)
      : this.uri.slice(start, nameEnd);
    if (written instanceof DecodeFailure) {
      this.fail("uri", `the query parameter name at position ${start} ${written.describe()}`);
      return;
    }
    // The template's own string, not the slice, is the key: V8 stores a fresh string key in a
    // null-prototype object more than ten times slower than an internalized one.
    const name = this.queryNames[(this.queryNames as readonly string[]).indexOf(written)];
    if (name === undefined) {
      this.fail("uri", unknownParameterMessage(written, this.queryNames));
      return;
    }
    if (equals < 0) {
      this.fail(name, `has no "="; write ${name}=value (${name}= for the empty string)`);
      return;
    }
    if (this.query === EMPTY_RECORD) this.query = Object.create(null) as { [K in Q]?: string };
    else if (this.query[name] !== undefined) {
      this.repeatedParam(name);
      return;
    }
    const value = valueEscaped
      ? percentDecode(this.uri, equals + 1, end)
      : this.uri.slice(equals + 1, end);
    if (value instanceof DecodeFailure) {
      this.fail(name, value.describe());
      this.query[name] = "";
    } else this.query[name] = value;
  }

  private repeatedParam(name: Q): void {
    const reported = (this.repeatedNames ??= new Set());
    if (reported.has(name)) return;
    reported.add(name);
    this.fail(name, "is given more than once; give it once");
  }

  /** Logs the character at `i` that should have been percent-encoded; returns its width. */
  private rawChar(i: number): number {
    return (this.rawChars ??= new RawCharLog()).add(this.uri, i);
  }

  private fail(field: string, message: string): void {
    (this.errors ??= []).push({ field, message });
  }
}

/** The values without an error of their own, so no field is reported twice. */
function partsWithout<P extends string, Q extends string>(
  errors: readonly FieldError[],
  pathValues: Record<P, string>,
  queryValues: { [K in Q]?: string },
): UriParts<P, Q> {
  const path: Record<string, string> = { ...pathValues };
  const query: Record<string, string> = Object.assign(Object.create(null), queryValues);
  for (const { field } of errors) {
    delete path[field];
    delete query[field];
  }
  return { path: path as Record<P, string>, query: query as { [K in Q]?: string } };
}

/** Why a URI with `count` path segments is not one of a template with `pathNames` after `base`. */
function segmentCountMessage(pathNames: readonly string[], base: string, count: number): string {
  const shape = pathNames.map((name) => `/{${name}}`).join("");
  const wanted =
    pathNames.length === 0
      ? `no path after ${JSON.stringify(base)}`
      : `${plural(pathNames.length, "path segment")} after ${JSON.stringify(base)} (${shape})`;
  return `the URI must have ${wanted}; it has ${count}`;
}

function unknownParameterMessage(name: string, queryNames: readonly string[]): string {
  const what =
    name === ""
      ? "a query parameter with an empty name"
      : `the query parameter ${quoteValue(name)}`;
  if (queryNames.length === 0)
    return `the URI has ${what}, but this template takes no query parameters`;
  return `the URI has ${what}, which this template does not take; valid ones are ${queryNames.join(", ")}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
