import type { AuthInfo } from "@modelcontextprotocol/server";
import { versionOf } from "../../live/resultVersion.ts";
import type { ServedApp } from "../served/servedApp.ts";

/** What a read or a live command's call tells of its result besides the result itself. */
export interface ResultStamp {
  /** `versionOf` its JSON text. */
  readonly version: string;
  /** When livecmd saw the result last change (ISO 8601), when it knows. */
  readonly lastModified?: string;
}

/**
 * The stamp of `text`, what `command(...args)` returned for `auth`: its version, and when it last
 * changed if the URI is watched, a re-run saw it change, and that is the result it has now.
 */
export function resultStamp(
  served: ServedApp,
  command: string,
  args: readonly unknown[],
  auth: AuthInfo | undefined,
  text: string,
): ResultStamp {
  const watched = served.room.registry.resultOf(command, args, auth);
  const changedAt = watched?.text === text ? watched.changedAt : undefined;
  return {
    version: versionOf(text),
    ...(changedAt !== undefined && { lastModified: new Date(changedAt).toISOString() }),
  };
}
