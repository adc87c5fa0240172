import type { ServerCapabilities } from "@modelcontextprotocol/client";
import { fail, ok, type Finding } from "./report.ts";

const STEP = "capabilities";

/**
 * Fault 1 of the four: resources served but not declared. A host lists resources only when the
 * handshake declares them, so entries behind an undeclared capability never reach a menu, and
 * no failed request shows up in any log. The entry counts are what the listings gave anyway.
 */
export function capabilityFinding(
  capabilities: ServerCapabilities | undefined,
  listed: { resources: number; templates: number },
): Finding {
  const resources = capabilities?.resources;
  if (resources) {
    return ok(
      STEP,
      [
        "resources declared",
        `subscribe: ${yesNo(resources.subscribe)}`,
        `listChanged: ${yesNo(resources.listChanged)}${resources.listChanged ? "" : " (hosts keep the listing they fetched at connect time)"}`,
        `completions: ${yesNo(capabilities.completions !== undefined)}`,
      ].join(", "),
    );
  }
  if (listed.resources + listed.templates === 0) {
    return ok(
      STEP,
      "no resources capability, and no resources listed: nothing for a host to discover",
    );
  }
  return fail(
    STEP,
    `no resources capability, yet resources/list gives ${listed.resources} and resources/templates/list ${listed.templates}: a host never asks for them, so the menu stays empty`,
    "declare resources at the handshake: register every resource before the server connects (capabilities freeze then), or declare capabilities: { resources: {} } up front",
  );
}

function yesNo(flag: boolean | undefined): string {
  return flag ? "yes" : "no";
}
