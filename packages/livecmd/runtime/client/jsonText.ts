import type { ReadResourceResult } from "@modelcontextprotocol/client";

/** The JSON text of a livecmd read: its one text content (livecmd serves every result as JSON). */
export function jsonTextOf(uri: string, result: ReadResourceResult): string {
  const [content] = result.contents;
  if (!content || !("text" in content) || typeof content.text !== "string")
    throw new Error(`livecmd: reading ${uri} gave no text content; is this a livecmd server?`);
  return content.text;
}
