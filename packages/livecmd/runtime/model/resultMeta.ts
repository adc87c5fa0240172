// No imports: the browser-safe client and the generator read these keys too.

/**
 * Where a result's version travels (`versionOf` of its JSON text): `_meta` of a read's contents
 * and of a live command's call. Equal results have one version, on every replica.
 */
export const VERSION_META_KEY = "io.github.livecmd/version";

/**
 * When livecmd saw a result last change (ISO 8601), where it knows: the URI is watched, and a
 * re-run found it changed. `_meta` of a read's contents, which have no `annotations` in MCP's
 * schema; a call's text content carries it as `annotations.lastModified`.
 */
export const LAST_MODIFIED_META_KEY = "io.github.livecmd/lastModified";
