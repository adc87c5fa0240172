import type { ReadResourceResult } from "@modelcontextprotocol/server";
import { commandFailed } from "./protocolErrors.ts";
import { resolveUri } from "./resolveUri.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * `resources/read` of a plain resource or an expanded template URI: resolve it (parse, rebuild
 * and validate the arguments, check the grant), count it against the rate limit and run the
 * command as the agent.
 */
export async function readResource(served: ServedApp, uri: string): Promise<ReadResourceResult> {
  const { entry, args } = resolveUri(served, uri);
  served.admit(entry);
  let result: unknown;
  try {
    result = await served.runAsAgent(entry, args);
  } catch (error) {
    throw commandFailed(error);
  }
  return { contents: [{ uri, mimeType: entry.mimeType, text: JSON.stringify(result ?? null) }] };
}
