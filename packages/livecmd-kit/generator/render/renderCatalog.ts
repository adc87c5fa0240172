import type { Catalog } from "livecmd/internal";
import { printJson } from "./printJson.ts";

/** catalog.json: JSON cannot hold a comment, so the generated-file notice is its first key. */
export function renderCatalog(catalog: Catalog, notice: string): string {
  return printJson({ $comment: notice, ...catalog });
}
