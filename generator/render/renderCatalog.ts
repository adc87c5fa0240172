import type { Catalog } from "../../runtime/catalog.ts";

/** catalog.json: JSON cannot hold a comment, so the generated-file notice is its first key. */
export function renderCatalog(catalog: Catalog, notice: string): string {
  return `${JSON.stringify({ $comment: notice, ...catalog }, null, 2)}\n`;
}
