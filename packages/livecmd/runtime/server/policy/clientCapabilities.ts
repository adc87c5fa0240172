import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ServerContext,
} from "@modelcontextprotocol/server";

/**
 * What the client behind a request declared it can do: on 2026-07-28 on the request's own
 * envelope (a stateless client says it on every request), on the 2025 era at `initialize`
 * (`declared`, the connection's `Server.getClientCapabilities()`).
 */
export function clientCapabilitiesOf(
  ctx: ServerContext,
  declared: ClientCapabilities | undefined,
): ClientCapabilities | undefined {
  return (
    (envelopeOf(ctx)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? declared
  );
}

/** The request's 2026-07-28 envelope (the SDK types it as an empty object); none on the 2025 era. */
export function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  return ctx.mcpReq.envelope as Record<string, unknown> | undefined;
}
