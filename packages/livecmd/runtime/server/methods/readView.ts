import type { AuthInfo, ReadResourceResult } from "@modelcontextprotocol/server";
import type { CommandEntry } from "../../model/catalog.ts";
import { VIEW_MIME_TYPE, VIEW_RESOURCE_META } from "../../model/viewResource.ts";
import { viewPage } from "../../view/viewPage.ts";
import { viewScript } from "../../view/viewScript.ts";
import { resourceNotFound } from "../errors/protocolErrors.ts";
import type { ServedApp } from "../served/servedApp.ts";

/** Each command's page, made once: it holds the whole view runtime, and never changes. */
const pages = new WeakMap<CommandEntry, string>();

/**
 * `resources/read` of a command's view (`ui://app/<command>`): its HTML, for a principal that may
 * read the command now, as a read of the command's own URIs is; anyone else is told there is no
 * such resource, as for an ungranted command's URI.
 */
export function readView(
  served: ServedApp,
  uri: string,
  auth: AuthInfo | undefined,
): ReadResourceResult {
  const entry = served.catalog.viewOf(uri, auth);
  if (!entry) throw resourceNotFound(uri);
  let page = pages.get(entry);
  if (page === undefined) {
    page = viewPage(entry, served.catalog.watchTool?.name ?? null, viewScript());
    pages.set(entry, page);
  }
  return { contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: page, _meta: VIEW_RESOURCE_META }] };
}
