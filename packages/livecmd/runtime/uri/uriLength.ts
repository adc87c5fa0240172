import type { FieldError } from "./template.ts";
import { isSurrogatePairAt } from "./utf16.ts";

/** The longest URI livecmd reads, in bytes of its UTF-8 encoding. */
export const MAX_URI_LENGTH = 2048;

/** Whether `s` takes more than `limit` bytes as UTF-8; stops reading as soon as it does. */
export function exceedsUtf8Length(s: string, limit: number): boolean {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isSurrogatePairAt(s, i)) {
      bytes += 4;
      i++;
    } else bytes += 3; // an unpaired surrogate is written as U+FFFD
    if (bytes > limit) return true;
  }
  return false;
}

export function tooLongError(): FieldError {
  return {
    field: "uri",
    message:
      `the URI is longer than ${MAX_URI_LENGTH} bytes (as UTF-8), the limit; ` +
      `shorten the values, or call the command as a tool instead`,
  };
}
