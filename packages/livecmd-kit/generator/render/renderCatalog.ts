import type { Catalog } from "livecmd/internal";
import type { Reuse } from "../reuse.ts";
import { printJson } from "./printJson.ts";

/**
 * catalog.json: JSON cannot hold a comment, so the generated-file notice is its first key. With
 * `reuse`, a command entry the last generation printed is not printed again.
 */
export function renderCatalog(catalog: Catalog, notice: string, reuse?: Reuse): string {
  return printJson({ $comment: notice, ...catalog }, reuse);
}
