import type { JWTVerifyGetKey } from "jose";
import { cutText } from "../../text/cutText.ts";
import { AuthUnavailable } from "./authUnavailable.ts";

/** The first wait after the issuer fails, doubled on each failure up to `MAX_BACKOFF_MS`. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * An issuer's signing keys: its `jwks_uri` found once (RFC 8414 metadata, then OpenID
 * discovery) and the key set fetched and cached by jose (`createRemoteJWKSet`: ten minutes, a
 * fetch for an unknown key id at most every 30 s). When the issuer cannot be reached, nothing
 * is fetched again until a backoff has passed (1 s, doubling to 60 s): meanwhile every
 * verification throws `AuthUnavailable`, the first of the outage marked to be logged.
 */
export class IssuerKeys {
  readonly #issuer: string;
  readonly #jwksUri: string | undefined;
  #keys: Promise<JWTVerifyGetKey> | undefined;
  #backoffMs = 0;
  #retryAt = 0;
  #announced = false;

  constructor(issuer: string, jwksUri?: string) {
    this.#issuer = issuer;
    this.#jwksUri = jwksUri;
  }

  /** The key set; throws `AuthUnavailable` while the issuer is failing. */
  async keySet(): Promise<JWTVerifyGetKey> {
    const wait = this.#retryAt - Date.now();
    if (wait > 0) throw this.#unavailable(wait, "it failed moments ago");
    try {
      return await (this.#keys ??= jwksUriOf(this.#issuer, this.#jwksUri).then(async (uri) =>
        (await import("jose")).createRemoteJWKSet(new URL(uri)),
      ));
    } catch (error) {
      throw this.failed(error);
    }
  }

  /** Records that the issuer could not be reached (for metadata or keys); what to throw. */
  failed(error: unknown): AuthUnavailable {
    // The jwks_uri is looked up again after the wait: the issuer may have moved it.
    this.#keys = undefined;
    this.#backoffMs = Math.min(Math.max(this.#backoffMs * 2, FIRST_BACKOFF_MS), MAX_BACKOFF_MS);
    this.#retryAt = Date.now() + this.#backoffMs;
    return this.#unavailable(this.#backoffMs, (error as Error).message);
  }

  /** A verification went through the issuer's keys: any outage is over. */
  succeeded(): void {
    this.#backoffMs = 0;
    this.#retryAt = 0;
    this.#announced = false;
  }

  #unavailable(waitMs: number, why: string): AuthUnavailable {
    const first = !this.#announced;
    this.#announced = true;
    return new AuthUnavailable(
      `the token issuer ${this.#issuer} cannot be reached (${cutText(why, 200)}); tokens are refused with 503 until it answers, tried again in ${Math.ceil(waitMs / 1000)} s`,
      Math.ceil(waitMs / 1000),
      first,
    );
  }
}

/** The issuer's `jwks_uri`, from its authorization server metadata or its OpenID configuration. */
async function jwksUriOf(issuer: string, jwksUri: string | undefined): Promise<string> {
  if (jwksUri) return jwksUri;
  const base = issuer.replace(/\/$/, "");
  for (const path of [
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
  ]) {
    const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const metadata = (await response.json()) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === "string") return metadata.jwks_uri;
  }
  throw new Error(
    `${issuer} publishes no jwks_uri (tried its authorization server metadata and OpenID configuration); pass jwksUri`,
  );
}
