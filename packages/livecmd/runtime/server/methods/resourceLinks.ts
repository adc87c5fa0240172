import type { AuthInfo, ResourceLink } from "@modelcontextprotocol/server";
import { shortened } from "../../text/cutText.ts";
import { resolveUri, type ResolvedUri } from "../served/resolveUri.ts";
import type { ServedApp } from "../served/servedApp.ts";

/**
 * The `resource_link` content of the URIs a command linked to (`ctx.link`), each once, in the
 * order linked. A URI that a read by `auth` would refuse (a typo, an ungranted command, values
 * out of range) is left out and told to `onerror`: a link is a promise that the agent can read
 * and watch it.
 */
export function resourceLinks(
  served: ServedApp,
  tool: string,
  uris: readonly string[],
  auth: AuthInfo | undefined,
): ResourceLink[] {
  const links: ResourceLink[] = [];
  for (const uri of new Set(uris)) {
    const resolved = readable(served, uri, auth);
    if (!resolved) {
      served.onerror(
        new Error(
          `${tool} linked ${shortened(uri)}, which a read by the same agent would refuse; the link was left out`,
        ),
      );
      continue;
    }
    const { entry } = resolved;
    links.push({
      type: "resource_link",
      uri,
      name: entry.name,
      ...(entry.title !== undefined && { title: entry.title }),
      description: entry.description,
      mimeType: entry.mimeType,
    });
  }
  return links;
}

/** What `uri` resolves to for `auth`, or undefined where a read would refuse it. */
function readable(
  served: ServedApp,
  uri: string,
  auth: AuthInfo | undefined,
): ResolvedUri | undefined {
  try {
    return resolveUri(served, uri, auth);
  } catch {
    return undefined;
  }
}
