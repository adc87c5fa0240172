/**
 * `text` made safe inside a block comment: a `*\/` would end it, so it is written `* /`, as
 * json-schema-to-typescript writes it (the variable types are held to its output).
 */
export function commentSafe(text: string): string {
  return text.replaceAll("*/", "* /");
}
