import type { Int } from "./int.ts";
import { DecodeFailure, percentDecode } from "./percentDecode.ts";
import {
  AMPERSAND,
  CHAR_CLASS,
  CLASS_PERCENT,
  CLASS_PLAIN,
  EQUALS,
  QUESTION,
  SLASH,
} from "./uriChars.ts";
import { integerRead, isJsonNumberSyntax, readInteger } from "./scalarSyntax.ts";
import { MAX_URI_LENGTH } from "./uriLength.ts";

/** What each UTF-16 code unit is inside a value: every unit has an entry, so no bounds check. */
const IN_VALUE = 1;
const ESCAPE = 2;
const VALUE_CHARS: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  for (let c = 0; c < 128; c++) {
    if (CHAR_CLASS[c] === CLASS_PLAIN) table[c] = IN_VALUE;
    else if (CHAR_CLASS[c] === CLASS_PERCENT) table[c] = ESCAPE;
  }
  return table;
})();

/**
 * Whether `constant` can be compared in place by `oneOf`: not empty, and only characters a
 * value holds as they are (no `/`, `&`, `=`, `%` or anything that must be encoded).
 */
export function isPlainConstant(constant: string): boolean {
  if (constant.length === 0) return false;
  for (let i = 0; i < constant.length; i++) {
    if (VALUE_CHARS[constant.charCodeAt(i)] !== IN_VALUE) return false;
  }
  return true;
}

/**
 * Reads a URI in the one form the generated `uris.*` builders write: the base, one `/segment`
 * per path variable, then the query parameters that are present, in template order, each value
 * made of plain characters and `%XX` escapes. That is nearly every URI a server sees, and it
 * can be read in one pass without taking it apart first.
 *
 * It accepts a subset of what the strict path (`splitUri` and `FieldReader`) accepts, with the
 * same values. Whatever else it meets (a parameter out of order, a raw `=` in a value, a bad
 * escape, an escaped digit, a value out of range) only makes `end()` false: generated parsers
 * then read the URI again strictly, which reports every error. So it has no messages of its own.
 *
 * A generated module keeps one cursor and reuses it: parsing is synchronous, and allocates
 * nothing but the values.
 */
export class UriCursor {
  private uri = "";
  private at = 0;
  private ok = false;
  private inQuery = false;

  /** Starts on `uri`; false (and nothing more to read) unless it begins with `base`. */
  start(uri: string, base: string): boolean {
    this.uri = uri;
    this.at = base.length;
    this.inQuery = false;
    this.ok = uri.length <= MAX_URI_LENGTH && uri.startsWith(base);
    return this.ok;
  }

  /** Moves into the next path segment; false (a miss) when there is none. */
  segment(): boolean {
    if (!this.ok || this.uri.charCodeAt(this.at) !== SLASH) return (this.ok = false);
    this.at++;
    return true;
  }

  /** Moves past `?name=` (`&name=` after the first) when that comes next; false when not. */
  param(name: string): boolean {
    const { uri, at } = this;
    if (!this.ok || uri.charCodeAt(at) !== (this.inQuery ? AMPERSAND : QUESTION)) return false;
    const valueStart = at + 1 + name.length;
    if (uri.charCodeAt(valueStart) !== EQUALS || !uri.startsWith(name, at + 1)) return false;
    this.at = valueStart + 1;
    this.inQuery = true;
    return true;
  }

  string(): string {
    const { uri, at: start } = this;
    let escaped = false;
    let i = start;
    for (; i < uri.length; i++) {
      const kind = VALUE_CHARS[uri.charCodeAt(i)];
      if (kind === ESCAPE) escaped = true;
      else if (kind !== IN_VALUE) break;
    }
    this.at = i;
    if (i === start && !this.inQuery) return this.miss("");
    if (!escaped) return uri.slice(start, i);
    const value = percentDecode(uri, start, i);
    return value instanceof DecodeFailure ? this.miss("") : value;
  }

  /** `-?(0|[1-9][0-9]*)` within ±(2^53-1), read where it sits. */
  integer(): Int {
    const value = readInteger(this.uri, this.at);
    this.at = integerRead.end;
    if (!this.valueEndsAt(this.at) || !(Math.abs(value) <= Number.MAX_SAFE_INTEGER))
      return this.miss(0 as Int);
    return value as Int;
  }

  /** A JSON number, finite as a double. */
  number(): number {
    const raw = this.string();
    const value = isJsonNumberSyntax(raw) ? Number(raw) : NaN;
    return Number.isFinite(value) ? value : this.miss(0);
  }

  boolean(): boolean {
    return this.oneOf(BOOLEAN_SPELLINGS) === "true";
  }

  /**
   * Exactly one of `constants`, compared in place, without reading the value out first. Every
   * constant must pass `isPlainConstant`: the generator checks that before it writes the call.
   */
  oneOf<const T extends string>(constants: readonly T[]): T {
    const { uri, at } = this;
    for (let k = 0; k < constants.length; k++) {
      const constant = constants[k]!;
      const end = at + constant.length;
      if (uri.startsWith(constant, at) && this.valueEndsAt(end)) {
        this.at = end;
        return constant;
      }
    }
    return this.miss(constants[0]!);
  }

  /** Whether everything was read, to the last character, without a miss. */
  end(): boolean {
    return this.ok && this.at === this.uri.length;
  }

  /** Whether a value may end at `i`: the URI ends there, or what is there is no part of a value. */
  private valueEndsAt(i: number): boolean {
    return i >= this.uri.length || VALUE_CHARS[this.uri.charCodeAt(i)] === 0;
  }

  /** Marks the URI as not in the canonical form; `placeholder` is never seen, as `end()` is false. */
  private miss<T>(placeholder: T): T {
    this.ok = false;
    return placeholder;
  }
}

const BOOLEAN_SPELLINGS = ["true", "false"] as const;
