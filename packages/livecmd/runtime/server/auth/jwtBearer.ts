import type { AuthInfo } from "@modelcontextprotocol/server";
import type * as Jose from "jose";
import type { JWTPayload } from "jose";
import type { HttpAuth } from "./httpAuth.ts";
import { IssuerKeys } from "./issuerKeys.ts";

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
 * issuer's JWKS (`IssuerKeys`: cached, with a backoff while the issuer is down), `iss`, `aud`,
 * `exp`. A token that is no JWT of this issuer is refused before any key is fetched. The
 * principal's client id is `client_id` (RFC 9068), else `azp`, else `sub`; its scopes `scope`.
 * jose loads with the first token: a server that never sees one (stdio) never loads it.
 */
export function jwtBearer(options: JwtBearerOptions): HttpAuth {
  const keys = new IssuerKeys(options.issuer, options.jwksUri);
  return {
    authorizationServers: [options.issuer],
    audience: options.audience,
    ...(options.requiredScopes && { requiredScopes: options.requiredScopes }),
    async verify(token) {
      const jose = await import("jose");
      if (!fromIssuer(jose, token, options.issuer)) return undefined;
      const keySet = await keys.keySet();
      let payload: JWTPayload;
      try {
        ({ payload } = await jose.jwtVerify(token, keySet, {
          issuer: options.issuer,
          audience: options.audience,
        }));
      } catch (error) {
        if (isKeyFetchFailure(jose, error)) throw keys.failed(error);
        return undefined;
      }
      keys.succeeded();
      return authInfoOf(token, payload, options.audience);
    },
  };
}

/** Whether `token` reads as a signed JWT naming `issuer` (unverified: only to spare the issuer). */
function fromIssuer(jose: typeof Jose, token: string, issuer: string): boolean {
  try {
    jose.decodeProtectedHeader(token);
    return jose.decodeJwt(token).iss === issuer;
  } catch {
    return false;
  }
}

/** jose's errors that say the token is bad; any other (a fetch, a timeout) says the issuer is. */
function isKeyFetchFailure({ errors }: typeof Jose, error: unknown): boolean {
  const tokenErrors = [
    errors.JWTClaimValidationFailed,
    errors.JWTExpired,
    errors.JWTInvalid,
    errors.JWSInvalid,
    errors.JWSSignatureVerificationFailed,
    errors.JWKSNoMatchingKey,
    errors.JWKSMultipleMatchingKeys,
    errors.JOSEAlgNotAllowed,
    errors.JOSENotSupported,
    errors.JWKInvalid,
  ];
  return !tokenErrors.some((kind) => error instanceof kind);
}

function authInfoOf(token: string, payload: JWTPayload, audience: string): AuthInfo | undefined {
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
