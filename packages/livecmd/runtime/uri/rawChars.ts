import type { FieldError } from "./template.ts";
import { percentEncode } from "./percentEncode.ts";

/**
 * Collects the characters that should have been percent-encoded, one error per distinct
 * character, so a value full of spaces gives one error rather than dozens.
 */
export class RawCharLog {
  private readonly seen = new Map<number, { position: number; count: number }>();

  /** Records the character at `position`; returns how many UTF-16 units it spans. */
  add(uri: string, position: number): number {
    const codePoint = uri.codePointAt(position) ?? 0;
    const entry = this.seen.get(codePoint);
    if (entry) entry.count++;
    else this.seen.set(codePoint, { position, count: 1 });
    return codePoint > 0xffff ? 2 : 1;
  }

  errors(): FieldError[] {
    const errors: FieldError[] = [];
    for (const [codePoint, { position, count }] of this.seen) {
      errors.push({ field: "uri", message: rawCharMessage(codePoint, position, count) });
    }
    return errors;
  }
}

function rawCharMessage(codePoint: number, position: number, count: number): string {
  const what = describe(codePoint);
  const where =
    count === 1
      ? `${what} at position ${position}`
      : `${what} ${count} times, first at position ${position}`;
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
    return `the URI contains ${where}, which is not a character and has no UTF-8 encoding; remove it`;
  }
  const encoded = percentEncode(String.fromCodePoint(codePoint));
  return `the URI contains ${where}; percent-encode it as ${encoded}`;
}

function describe(codePoint: number): string {
  const hex = "U+" + codePoint.toString(16).toUpperCase().padStart(4, "0");
  if (codePoint === 0x20) return "a space";
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) {
    return `a control character (${hex})`;
  }
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return `an unpaired surrogate (${hex})`;
  return `${JSON.stringify(String.fromCodePoint(codePoint))} (${hex})`;
}
