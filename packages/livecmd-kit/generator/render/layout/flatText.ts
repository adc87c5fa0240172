import type { Doc } from "./layOut.ts";

/**
 * The doc printed on one line, or undefined when something in it must break (a hard line, a
 * group built broken). Most of what the generator lays out fits on its line; printing it flat
 * directly skips the fitting machinery.
 */
export function flatText(doc: Doc): string | undefined {
  const parts: string[] = [];
  return appendFlat(doc, parts) ? parts.join("") : undefined;
}

function appendFlat(doc: Doc, parts: string[]): boolean {
  if (typeof doc === "string") {
    parts.push(doc);
    return true;
  }
  if (Array.isArray(doc)) return doc.every((part) => appendFlat(part, parts));
  switch (doc.type) {
    case "group":
      return !doc.break && appendFlat(doc.contents, parts);
    case "indent":
    case "align":
    case "indent-if-break":
    case "label":
      return appendFlat((doc as { contents: Doc }).contents, parts);
    case "if-break":
      return appendFlat(doc.flatContents, parts);
    case "line":
      if (doc.hard) return false;
      if (!doc.soft) parts.push(" ");
      return true;
    case "fill":
      return doc.parts.every((part) => appendFlat(part, parts));
    case "break-parent":
      return false;
    default:
      return true;
  }
}
