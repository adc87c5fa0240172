import type { AuthInfo } from "@modelcontextprotocol/server";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { HttpAuth } from "./httpAuth.ts";

export interface JwtBearerOptions {
  /** The authorization server that issues the tokens (`iss`), e.g. https://auth.example.com. */
  issuer: string;
  /** The audience tokens must be issued for (`aud`): this server's URL (RFC 8707). */
  audience: string;
  /** Where the signing keys are; read from the issuer's metadata (RFC 8414, then OpenID discovery) when absent. */
  jwksUri?: string;
  /** Scopes every request needs. */
  requiredScopes?: readonly string[];
}

/**
 * JWT access tokens of an external authorization server, checked with `jose`: signature by the
 * issuer's JWKS (fetched once, refreshed as jose sees new key ids), `iss`, `aud`, `exp`. The
 * principal's client id is `client_id` (RFC 9068), else `azp`, else `sub`; its scopes `scope`.
 */
export function jwtBearer(options: JwtBearerOptions): HttpAuth {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const jwks = () => (keys ??= jwksUriOf(options).then((uri) => createRemoteJWKSet(new URL(uri))));
  return {
    authorizationServers: [options.issuer],
    ...(options.requiredScopes && { requiredScopes: options.requiredScopes }),
    async verify(token) {
      let keySet;
      try {
        keySet = await jwks();
      } catch (error) {
        // Fetched again on the next request: the issuer may be back by then.
        keys = undefined;
        throw error;
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySet, {
          issuer: options.issuer,
          audience: options.audience,
        }));
      } catch {
        return undefined;
      }
      return principalOf(token, payload, options.audience);
    },
  };
}

function principalOf(token: string, payload: JWTPayload, audience: string): AuthInfo | undefined {
  const clientId = [payload.client_id, payload.azp, payload.sub].find(
    (value): value is string => typeof value === "string",
  );
  if (clientId === undefined || payload.exp === undefined) return undefined;
  const scopes = typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [];
  return {
    token,
    clientId,
    scopes,
    expiresAt: payload.exp,
    resource: new URL(audience),
    extra: { ...payload },
  };
}

/** The issuer's `jwks_uri`, from its authorization server metadata or its OpenID configuration. */
async function jwksUriOf({ issuer, jwksUri }: JwtBearerOptions): Promise<string> {
  if (jwksUri) return jwksUri;
  const base = issuer.replace(/\/$/, "");
  for (const path of [
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
  ]) {
    const response = await fetch(`${base}${path}`).catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json()) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === "string") return metadata.jwks_uri;
  }
  throw new Error(
    `livecmd: ${issuer} publishes no jwks_uri (tried its authorization server metadata and OpenID configuration); pass jwksUri`,
  );
}
