import type { AuthInfo } from "@modelcontextprotocol/server";

/**
 * What ends a listen or a waiting watch call when its token is revoked or expires (the HTTP
 * endpoint's `HeldByToken`); nothing is held where no token is checked (stdio, no auth).
 */
export interface TokenHolds {
  /** Holds `end` while `auth`'s token is good; what stops holding it. */
  hold(auth: AuthInfo | undefined, end: () => void): () => void;
}

/** Where no token is checked: nothing to hold, nothing ever ended. */
export const NOTHING_HELD: TokenHolds = { hold: () => () => undefined };
