import type { AuthInfo, ReadResourceResult } from "@modelcontextprotocol/server";
import { InvalidArguments } from "../../validation/invalidArguments.ts";
import { commandFailed, invalidUri } from "../errors/protocolErrors.ts";
import { resolveUri } from "../served/resolveUri.ts";
import type { ServedApp } from "../served/servedApp.ts";
import { resultText } from "../../live/resultVersion.ts";
import { LAST_MODIFIED_META_KEY, VERSION_META_KEY } from "../../model/resultMeta.ts";
import { resultStamp } from "./resultStamp.ts";

/**
 * `resources/read` of a plain resource or an expanded template URI: resolve it (parse, rebuild
 * and validate the arguments, check the grant), count it against the rate limit and run the
 * command as the agent. A command that throws `InvalidArguments` is -32602 with its field errors,
 * like a URI that does not validate; any other throw is -32603 with the message only. The
 * contents carry the result's version, and when it last changed where livecmd knows (`_meta`).
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
  const text = resultText(result);
  const { version, lastModified } = resultStamp(served, entry.name, args, auth, text);
  const _meta = {
    [VERSION_META_KEY]: version,
    ...(lastModified !== undefined && { [LAST_MODIFIED_META_KEY]: lastModified }),
  };
  return { contents: [{ uri, mimeType: entry.mimeType, text, _meta }] };
}
