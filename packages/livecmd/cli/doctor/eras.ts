import type { ClientOptions } from "@modelcontextprotocol/client";

export type EraName = "2026-07-28" | "2025";

/** A protocol era, and how the SDK client is told to speak it. */
export interface Era {
  name: EraName;
  /** The request that opens a connection on this era. */
  handshake: "server/discover" | "initialize";
  clientOptions: ClientOptions;
}

/**
 * Newest first. The 2025 era is the SDK client's default: `initialize` offering 2025-11-25, and
 * whatever older version the server answers with.
 */
export const ERAS: readonly Era[] = [
  {
    name: "2026-07-28",
    handshake: "server/discover",
    clientOptions: { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  },
  { name: "2025", handshake: "initialize", clientOptions: {} },
];
