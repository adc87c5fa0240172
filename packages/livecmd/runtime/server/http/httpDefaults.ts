// Apart from serveHttp.ts, which loads the MCP SDK, so that the CLI's help text can show them.

/** Where `serveHttp` listens when no host is given: loopback, the only address served without auth. */
export const DEFAULT_HOST = "127.0.0.1";

/** How long a 2025-era session may stay idle before it is closed. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
