import { isSurrogatePairAt } from "./utf16.ts";

/** Long values are cut in messages: the start is enough to recognise them. */
const MAX_QUOTED_LENGTH = 40;

/**
 * A value as it appears in an error message: JSON-quoted, so empty strings, spaces and control
 * characters stay visible, and cut after about 40 characters.
 */
export function quoteValue(value: string): string {
  if (value.length <= MAX_QUOTED_LENGTH) return JSON.stringify(value);
  const cut = isSurrogatePairAt(value, MAX_QUOTED_LENGTH - 1)
    ? MAX_QUOTED_LENGTH - 1
    : MAX_QUOTED_LENGTH;
  return `${JSON.stringify(value.slice(0, cut))}... (${value.length} characters)`;
}
