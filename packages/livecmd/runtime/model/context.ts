import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Database } from "../db/database.ts";
import type { ResourceUri } from "../uri/resourceUri.ts";

/** Who asked for a command to run. */
export const Origin = {
  /** An AI agent over MCP (tools/call, resources/read, live re-runs of its subscriptions). */
  Agent: "agent",
  /** The app itself: its own code, scripts, tests. */
  App: "app",
} as const;
export type Origin = (typeof Origin)[keyof typeof Origin];

/** What a handler receives as its first argument. */
export interface Context {
  readonly origin: Origin;
  /** The command being run. */
  readonly command: string;
  /**
   * Who asks, when the server authenticates its clients (HTTP with `auth`): the verified token's
   * client id, scopes and claims (`extra`). Undefined on stdio, for the app's own runs, and over
   * HTTP without `auth`. A live re-run runs as the principal that subscribed.
   */
  readonly auth: AuthInfo | undefined;
  /** The app's database; statements are tracked for live subscriptions. */
  readonly db: Database;
  /** Reports a change made outside the database, so subscriptions that read `table` re-run. */
  changed(table: string): void;
  /**
   * Points the agent at a resource this run changed (`ctx.link(uris.customers_show({ id }))`,
   * a URI a generated builder made): a `tools/call` answers it as `resource_link` content beside
   * the result, which the agent can read and watch. Only a URI a read would accept for the same
   * principal is sent; the server drops any other and says so on its log. Nothing for the app's
   * own runs and for reads.
   */
  link(uri: ResourceUri<unknown>): void;
  /**
   * Fires when whoever asked no longer waits: the client cancelled the call
   * (`notifications/cancelled`) or went away (its connection or 2026-07-28 stream closed). The
   * database stops starting statements once it fired, and PostgreSQL cancels the one running;
   * pass it on to anything else slow (`fetch(url, { signal: ctx.signal })`). Never fires for the
   * app's own runs unless they pass one (`app.run(..., { signal })`).
   */
  readonly signal: AbortSignal;
  /**
   * Tells the client how far the command got (`notifications/progress`), when the request asked
   * for progress (a `progressToken`); otherwise nothing. `done` must grow from call to call;
   * `total` when known. Sent at most every 100 ms, the last one before the result.
   */
  progress(done: number, total?: number, message?: string): void;
}
