import { AsyncLocalStorage } from "node:async_hooks";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { principalOf } from "../../model/principal.ts";

/** The HTTP request a log line is written for: its id, and who sent it once that is known. */
export interface RequestContext {
  readonly id: string;
  /** The verified principal (`principalOf`); set by the front door once the token is checked. */
  principal?: string;
  /** The TCP connection it came on (`address:port`): what counts an unauthenticated client. */
  readonly connection?: string;
  /** The client's IP address, as the server's socket tells it (unknown to a bare `fetch` handler). */
  readonly address?: string;
}

/** Where a request came from, when the server that took it tells (Hono's `getConnInfo(c).remote`). */
export interface RemoteAddress {
  address?: string;
  port?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();
let served = 0;

/** Runs `handle` as a new request, come from `remote`: every log line written while it runs names it. */
export function asNewRequest<T>(handle: (context: RequestContext) => T, remote?: RemoteAddress): T {
  const address = remote?.address;
  const context: RequestContext = {
    id: `r${++served}`,
    ...(address !== undefined && { address, connection: `${address}:${remote?.port ?? ""}` }),
  };
  return storage.run(context, () => handle(context));
}

/** The request being served, if any (a line written for a write's re-run may have none). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Whom a subscription, listen or session counts against for the per-principal shares: `auth`'s
 * principal, or on an endpoint without auth the TCP connection of the request being served.
 * Unauthenticated loopback clients have nothing else to tell them apart by: every local process
 * comes from 127.0.0.1 (a share per address would be a second total), and a process is not
 * named over TCP. A connection is what a runaway client loops on (HTTP keep-alive), so its
 * share stops it short of the totals; a process that opens many connections is many holders,
 * as it is entitled to be where any local process may run every granted command. A bound that
 * holds against a hostile local process is a token per client (`--tokens`). Undefined (the
 * totals alone) outside an HTTP request: a stdio connection is one client, its own limit.
 */
export function holderOf(auth: AuthInfo | undefined): string | undefined {
  const principal = principalOf(auth);
  if (principal !== undefined) return `principal ${principal}`;
  const connection = currentRequest()?.connection;
  return connection === undefined ? undefined : `connection ${connection}`;
}
