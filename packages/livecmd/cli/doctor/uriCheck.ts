import type { Resource } from "@modelcontextprotocol/client";
import { fail, ok, type Finding } from "./report.ts";
import { uriProblem } from "./uriGrammar.ts";
import { sample } from "./wording.ts";

const STEP = "resource uris";

/**
 * Fault 3 of the four: a template string on resources/list. A `{` is outside the URI grammar,
 * so a host that validates the field drops the entry and one that does not shows it and fails
 * to read it; either way the family behind it is unreachable. Other grammar errors fare the same.
 */
export function uriFinding(resources: readonly Resource[]): Finding {
  if (resources.length === 0) return ok(STEP, "no resources");
  const broken: string[] = [];
  let templateStrings = 0;
  for (const { uri } of resources) {
    const problem = uriProblem(uri);
    if (!problem) continue;
    if (uri.includes("{")) {
      templateStrings++;
      broken.push(`${uri} is a template string, not a URI ("{" at position ${uri.indexOf("{")})`);
    } else broken.push(`${uri} ${problem.message}`);
  }
  if (broken.length === 0) {
    return ok(STEP, `every uri is an RFC 3986 URI (${resources.length})`);
  }
  return fail(
    STEP,
    `${sample(broken)}: a host that validates uri drops the entry, one that does not shows it and fails to read it`,
    templateStrings > 0
      ? "list each template string on resources/templates/list as a uriTemplate (in the TypeScript SDK: register it with new ResourceTemplate(...)), and only URIs on resources/list"
      : "percent-encode every character the URI grammar does not allow where it stands (RFC 3986 section 2)",
  );
}
