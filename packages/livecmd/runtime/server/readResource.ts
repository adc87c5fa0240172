import type { AuthInfo, ReadResourceResult } from "@modelcontextprotocol/server";
import { InvalidArguments } from "../validation/invalidArguments.ts";
import { commandFailed, invalidUri } from "./protocolErrors.ts";
import { resolveUri } from "./resolveUri.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * `resources/read` of a plain resource or an expanded template URI: resolve it (parse, rebuild
 * and validate the arguments, check the grant), count it against the rate limit and run the
 * command as the agent. A command that throws `InvalidArguments` is -32602 with its field errors,
 * like a URI that does not validate; any other throw is -32603 with the message only.
 */
export async function readResource(
  served: ServedApp,
  uri: string,
  auth?: AuthInfo,
  signal?: AbortSignal,
): Promise<ReadResourceResult> {
  const { entry, args } = resolveUri(served, uri, auth);
  served.admit(entry);
  let result: unknown;
  try {
    result = await served.runAsAgent(entry, args, auth, signal && { signal });
  } catch (error) {
    // The command refused its arguments itself: the same answer as a URI that does not validate.
    if (InvalidArguments.is(error)) throw invalidUri(uri, [...error.errors]);
    throw commandFailed(error);
  }
  return { contents: [{ uri, mimeType: entry.mimeType, text: JSON.stringify(result ?? null) }] };
}
