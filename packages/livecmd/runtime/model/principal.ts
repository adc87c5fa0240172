import type { AuthInfo } from "@modelcontextprotocol/server";

/**
 * Who a request is from: the verified token's client id (as the verifier names it: a tokens
 * file's `# name`, a JWT's `client_id`, `azp` or `sub`), undefined on an endpoint without auth.
 * The one rule for every place that asks: whom a session belongs to, whom a subscription counts
 * against, whom a confirmation is bound to, whose re-runs are grouped, and whom a log line names.
 * Scopes are not part of it: a client that steps up to a token with more scopes (after a 403
 * `insufficient_scope`) is the same principal, and keeps its 2025 session and its shares.
 */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  return auth?.clientId;
}
