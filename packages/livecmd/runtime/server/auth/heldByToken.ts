import type { AuthInfo } from "@modelcontextprotocol/server";
import type { HttpAuth } from "./httpAuth.ts";

/** The longest delay `setTimeout` keeps (about 24.8 days); a later expiry is checked then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long after a token's `exp` it is checked again: jose refuses it from that second on. */
const EXPIRY_MARGIN_MS = 50;

/** How soon a token whose check failed (the issuer unreachable) is checked again. */
const RETRY_MS = 5_000;

interface Hold {
  info: AuthInfo;
  readonly end: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * What stays open under a token after its request was answered: a 2026-07-28 listen stream, a
 * 2025 session. A token removed from the tokens file (`onRevocation`) or past its expiry would
 * otherwise go on receiving updates until the client leaves; so each held token is verified
 * again when the auth says tokens may have been revoked and when it expires, and what it holds
 * is ended at once when it no longer verifies.
 */
export class HeldByToken {
  readonly #auth: HttpAuth | undefined;
  /** The endpoint's URL; undefined when it has no one URL (each token is then checked at its own). */
  readonly #resource: URL | undefined;
  readonly #onerror: (error: Error) => void;
  readonly #holds = new Set<Hold>();
  readonly #stopWatching: (() => void) | undefined;

  constructor(
    auth: HttpAuth | undefined,
    resource: URL | undefined,
    onerror: (error: Error) => void,
  ) {
    this.#auth = auth;
    this.#resource = resource;
    this.#onerror = onerror;
    this.#stopWatching = auth?.onRevocation?.(() => {
      for (const hold of this.#holds) void this.#check(hold);
    });
  }

  /**
   * Holds `end` under the token of `info` (nothing to hold without auth); returns its release.
   * The token is checked once more as the hold is taken: it was verified when its request came
   * in, and a revocation between then and now (a listen or a watch call is held only once its
   * watch is open) found nothing held to end.
   */
  hold(info: AuthInfo | undefined, end: () => void): () => void {
    if (!this.#auth || !info) return () => undefined;
    const hold: Hold = { info, end, timer: undefined };
    this.#holds.add(hold);
    void this.#check(hold);
    return () => this.#release(hold);
  }

  close(): void {
    this.#stopWatching?.();
    for (const hold of [...this.#holds]) this.#release(hold);
  }

  #schedule(hold: Hold, delayMs: number): void {
    clearTimeout(hold.timer);
    hold.timer = setTimeout(
      () => void this.#check(hold),
      Math.min(Math.max(delayMs, 0), MAX_TIMER_MS),
    ).unref();
  }

  async #check(hold: Hold): Promise<void> {
    let verified: AuthInfo | undefined;
    try {
      // A token held was verified for its `resource` (the SDK refuses one without).
      const resource = this.#resource ?? hold.info.resource!;
      verified = await this.#auth!.verify(hold.info.token, resource);
    } catch (error) {
      // An issuer that cannot be reached revokes nothing: the token is checked again soon.
      this.#onerror(error instanceof Error ? error : new Error(String(error)));
      return this.#schedule(hold, RETRY_MS);
    }
    if (!this.#holds.has(hold)) return;
    const expiresAtMs = (verified?.expiresAt ?? 0) * 1000;
    if (!verified || expiresAtMs <= Date.now()) {
      this.#release(hold);
      return hold.end();
    }
    hold.info = verified;
    this.#schedule(hold, expiresAtMs - Date.now() + EXPIRY_MARGIN_MS);
  }

  #release(hold: Hold): void {
    clearTimeout(hold.timer);
    this.#holds.delete(hold);
  }
}
