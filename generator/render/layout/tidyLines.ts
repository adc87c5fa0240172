/**
 * The whitespace prettier never keeps, which filling in a template leaves behind: spaces at a
 * line end (a placeholder that starts on a new line), runs of blank lines (an empty
 * placeholder on a line of its own), and braces with nothing but a newline between them.
 * Safe on generated code because none of its strings, template literals or comments spans lines.
 */
export function tidyLines(text: string): string {
  return text
    .replace(/ +\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/\{\n *\}/g, "{}");
}
