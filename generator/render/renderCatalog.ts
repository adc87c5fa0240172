import type { Catalog } from "../../runtime/model/catalog.ts";
import { printJson } from "./printJson.ts";

/** catalog.json: JSON cannot hold a comment, so the generated-file notice is its first key. */
export function renderCatalog(catalog: Catalog, notice: string): string {
  return printJson({ $comment: notice, ...catalog });
}
