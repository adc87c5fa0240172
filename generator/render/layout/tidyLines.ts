/**
 * The whitespace prettier never keeps, which filling in a template leaves behind: spaces at a
 * line end (a placeholder that starts on a new line), runs of blank lines (an empty
 * placeholder on a line of its own), and braces with nothing but a newline between them.
 * Safe on generated code because none of its strings, template literals or comments spans lines.
 */
export function tidyLines(text: string): string {
  return text.replace(UNTIDY, (match) =>
    match.startsWith("{") ? "{}" : match.endsWith("\n\n") ? "\n\n" : "\n",
  );
}

/** One pass over the text: blank lines (after any line-end spaces), then line-end spaces, then empty braces. */
const UNTIDY = / *\n(?: *\n){2,}| +\n|\{\n *\}/g;
