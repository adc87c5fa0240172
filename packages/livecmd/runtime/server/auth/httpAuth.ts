import {
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { AuthUnavailable } from "./authUnavailable.ts";

/**
 * How the HTTP endpoint authenticates its clients, as an OAuth 2.1 resource server: a bearer
 * token in the `Authorization` header, verified into the SDK's `AuthInfo` (the principal
 * handlers see as `ctx.auth`). `staticTokens` and `jwtBearer` are two ready ones.
 */
export interface HttpAuth {
  /**
   * The principal a token stands for, or undefined to refuse it (401). Async allowed. The
   * `AuthInfo` needs `expiresAt` (seconds since the epoch; the SDK refuses a token without it)
   * and, for the audience check, `resource`: the URL the token was issued for, which must be
   * `resource`, this endpoint's URL as clients reach it.
   */
  verify(token: string, resource: URL): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** The authorization servers clients get tokens from (RFC 9728 `authorization_servers`); none for static tokens. */
  authorizationServers?: readonly string[];
  /** Scopes every request needs; a token without them is refused with 403 `insufficient_scope`. */
  requiredScopes?: readonly string[];
  /**
   * The resource its tokens are issued for (`aud`), when it checks one: `serveHttp` refuses to
   * start when it is not the endpoint's URL, since every token would then be refused.
   */
  audience?: string;
  /** Scopes to advertise in the protected-resource metadata (`scopes_supported`). */
  scopesSupported?: readonly string[];
  /**
   * Calls `listener` whenever tokens it accepted may no longer verify (static tokens: after each
   * re-read of the file), so that what they hold open is checked again; returns its removal.
   * Expiry needs none: a token is checked again at its `expiresAt`.
   */
  onRevocation?(listener: () => void): () => void;
}

/** Where the endpoint's RFC 9728 protected-resource metadata document is, for `resource` (…/mcp). */
export function metadataUrlOf(resource: URL): URL {
  return new URL(`/.well-known/oauth-protected-resource${resource.pathname}`, resource);
}

/**
 * Checks the bearer token of `request` with the SDK's own pieces (`verifyBearerToken`: header
 * syntax, expiry, audience against `resource`, required scopes): the principal, or the
 * 401/403 answer with its `WWW-Authenticate` challenge naming `resource_metadata` (and `scope`).
 */
export async function authenticate(
  request: Request,
  auth: HttpAuth,
  resource: URL,
  advertised: boolean,
  onerror: (error: Error) => void,
): Promise<AuthInfo | Response> {
  // An endpoint with no one URL to advertise names no metadata document in its challenges.
  const resourceMetadataUrl = advertised ? metadataUrlOf(resource).href : undefined;
  const requiredScopes = auth.requiredScopes === undefined ? undefined : [...auth.requiredScopes];
  if (!request.headers.get("authorization"))
    return tokenMissing(resourceMetadataUrl, requiredScopes);
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const principal = await auth.verify(token, resource);
      if (!principal)
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "the token is not one this server accepts",
        );
      return principal;
    },
  };
  try {
    return await verifyBearerToken(request.headers.get("authorization"), {
      verifier,
      ...(resourceMetadataUrl !== undefined && { resourceMetadataUrl }),
      expectedResource: resource,
      ...(requiredScopes && { requiredScopes }),
    });
  } catch (error) {
    if (error instanceof AuthUnavailable) {
      if (error.firstOfOutage) onerror(error);
      return authUnavailable(error);
    }
    return bearerAuthChallengeResponse(error, {
      ...(resourceMetadataUrl !== undefined && { resourceMetadataUrl }),
      ...(requiredScopes && { requiredScopes }),
    });
  }
}

/**
 * 401 to a request with no token at all: a challenge naming where to learn how to get one, and
 * no error code (RFC 6750 §3.1: a request that lacks any authentication information is not
 * told of an error; the SDK's challenge says `invalid_token`).
 */
function tokenMissing(
  resourceMetadataUrl: string | undefined,
  requiredScopes: readonly string[] | undefined,
): Response {
  const parameters = [
    ...(requiredScopes?.length ? [`scope="${quotedString(requiredScopes.join(" "))}"`] : []),
    ...(resourceMetadataUrl ? [`resource_metadata="${quotedString(resourceMetadataUrl)}"`] : []),
  ];
  return new Response(
    "Unauthorized: this endpoint needs a bearer token in the Authorization header; the WWW-Authenticate challenge names the metadata that says where to get one\n",
    {
      status: 401,
      headers: {
        "www-authenticate": ["Bearer", parameters.join(", ")].filter(Boolean).join(" "),
        "content-type": "text/plain",
      },
    },
  );
}

/** A value inside an auth-param's quotes (RFC 9110 quoted-string). */
function quotedString(value: string): string {
  return value.replace(/["\\]/g, "\\$&");
}

/** 503 with `Retry-After`: the token may be good, but cannot be checked now. */
function authUnavailable(error: AuthUnavailable): Response {
  return oauthErrorResponse(
    503,
    OAuthErrorCode.TemporarilyUnavailable,
    `the token cannot be checked now: its issuer does not answer; retry in ${error.retryAfterS} s`,
    { "retry-after": String(error.retryAfterS) },
  );
}

/** OAuth 2.1: a bearer token never travels in the URI, where logs and proxies keep it (400). */
export function tokenInQuery(): Response {
  return oauthErrorResponse(
    400,
    OAuthErrorCode.InvalidRequest,
    "an access token goes in the Authorization header, never in the query string",
  );
}

/**
 * An OAuth error answer livecmd writes itself (RFC 6750 §3.1); the 401s and 403s with their
 * `WWW-Authenticate` challenges are the SDK's (`bearerAuthChallengeResponse`).
 */
function oauthErrorResponse(
  status: number,
  error: OAuthErrorCode,
  description: string,
  headers?: Record<string, string>,
): Response {
  return Response.json(
    { error, error_description: description },
    { status, ...(headers && { headers }) },
  );
}

/** How a problem with the endpoint's URL is told: in `livecmd serve`'s flags, or in code. */
const SPELLINGS = {
  listening: {
    unknown: "serving on every interface, the server",
    publicUrl: (url: string) => `--public-url ${url}`,
    audience: (url: string) => `--audience ${url}`,
  },
  mounted: {
    unknown: "mounted in your server, the endpoint",
    publicUrl: (url: string) => `publicUrl: new URL(${JSON.stringify(url)})`,
    audience: (url: string) => `jwtBearer({ audience: ${JSON.stringify(url)} })`,
  },
};

/**
 * Why `auth` can never accept a token for `resource`, if so: its audience is another URL (the
 * SDK compares the two exactly, but for a fragment and a trailing slash), or the endpoint has no
 * one URL (`serving`: on every interface, or mounted in an app's server) to compare it with.
 */
export function audienceProblem(
  auth: HttpAuth,
  resource: URL | undefined,
  serving: keyof typeof SPELLINGS = "listening",
): string | undefined {
  if (auth.audience === undefined) return undefined;
  const spell = SPELLINGS[serving];
  if (resource === undefined)
    return `${spell.unknown} does not know the URL tokens for the audience ${auth.audience} are presented at; pass ${spell.publicUrl(auth.audience)}`;
  const comparable = (url: string) => url.replace(/#.*$/, "").replace(/\/$/, "");
  if (
    URL.canParse(auth.audience) &&
    comparable(new URL(auth.audience).href) === comparable(resource.href)
  )
    return undefined;
  return `the audience ${auth.audience} is not this endpoint's URL ${resource.href}, so every token would be refused (RFC 8707); pass ${spell.audience(resource.href)}, or ${spell.publicUrl(auth.audience)} if clients reach the server there`;
}

/** RFC 9728: what a client learns of this resource server before it gets a token. */
export function protectedResourceMetadata(auth: HttpAuth, resource: URL): Record<string, unknown> {
  return {
    resource: resource.href,
    ...(auth.authorizationServers && { authorization_servers: [...auth.authorizationServers] }),
    ...(auth.scopesSupported && { scopes_supported: [...auth.scopesSupported] }),
    bearer_methods_supported: ["header"],
  };
}
