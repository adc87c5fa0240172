// No imports: the browser-safe client and the generator read these keys too.

/**
 * Where a result's version travels (`versionOf` of its JSON text): `_meta` of a read's contents,
 * of a live command's call, and of a `resources/updated` (`updatedParams`). Equal results have
 * one version, on every replica.
 */
export const VERSION_META_KEY = "io.github.livecmd/version";

/**
 * A `resources/updated`'s params: the URI, and the version of what it reads as now, so that a
 * client already holding that version need not read it again (none when reading it now fails).
 */
export function updatedParams(
  uri: string,
  version: string | undefined,
): { uri: string; _meta?: Record<string, string> } {
  return { uri, ...(version !== undefined && { _meta: { [VERSION_META_KEY]: version } }) };
}

/**
 * When livecmd saw a result last change (ISO 8601), where it knows: the URI is watched, and a
 * re-run found it changed. `_meta` of a read's contents, which have no `annotations` in MCP's
 * schema; a call's text content carries it as `annotations.lastModified`.
 */
export const LAST_MODIFIED_META_KEY = "io.github.livecmd/lastModified";

/**
 * What a tool error says to code (its field errors, a limit and its scope): `_meta` of the error
 * result, not `structuredContent`, which a client validates against the tool's `outputSchema`
 * (the SDK v1 `Client.callTool` and the MCP Inspector do so even for an error, and then show a
 * schema mismatch instead of the error).
 */
export const ERROR_META_KEY = "io.github.livecmd/error";
