import type { Target } from "./target.ts";

/**
 * Why an HTTP server that served neither era turned doctor away, when it did so with 401 or
 * 403: the status, its `WWW-Authenticate` challenge, and the authorization servers its
 * protected resource metadata (RFC 9728) names; undefined when it did not.
 */
export async function refusal(
  target: Target & { kind: "http" },
  timeoutMs: number,
): Promise<string | undefined> {
  const answer = await fetch(target.url, {
    method: "POST",
    headers: {
      ...target.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    signal: AbortSignal.timeout(timeoutMs),
  }).catch(() => undefined);
  if (!answer || (answer.status !== 401 && answer.status !== 403)) return undefined;
  await answer.body?.cancel();
  const challenge = answer.headers.get("www-authenticate");
  const given = target.headers.authorization !== undefined;
  const what =
    answer.status === 403
      ? "403 Forbidden: the token given lacks a scope it needs"
      : given
        ? "401 Unauthorized: the token given was refused"
        : "401 Unauthorized: it needs a token";
  const servers = challenge ? await authorizationServers(challenge, timeoutMs) : undefined;
  return [
    `the server answered ${what}`,
    challenge && ` (WWW-Authenticate: ${challenge})`,
    servers && `; its resource metadata names the authorization server ${servers}`,
    given ? "" : "; pass one: --header 'Authorization: Bearer <token>' or --token-file FILE",
  ]
    .filter(Boolean)
    .join("");
}

/** The `authorization_servers` of the metadata the challenge's `resource_metadata` points at. */
async function authorizationServers(
  challenge: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  if (!url) return undefined;
  const metadata = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    .then((answer) =>
      answer.ok ? (answer.json() as Promise<{ authorization_servers?: unknown }>) : undefined,
    )
    .catch(() => undefined);
  const servers = metadata?.authorization_servers;
  return Array.isArray(servers) && servers.length > 0 ? servers.map(String).join(", ") : undefined;
}
