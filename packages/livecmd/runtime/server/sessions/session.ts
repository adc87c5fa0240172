import type {
  AuthInfo,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { ClientConnection } from "../methods/clientConnection.ts";
import { SSE_RETRY_MS } from "../streams/eventStream.ts";
import type { SharedSubscriptions } from "./sharedSubscriptions.ts";
import type { Activity } from "../served/activity.ts";
import type { SessionAnswers } from "./sessionAnswers.ts";
import type { SessionEventStore } from "./sessionEventStore.ts";

/** This process's copy of a 2025-era session: its own transport, server instance and connection. */
export interface Session {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly connection: ClientConnection;
  /** The client id of the principal that opened it; undefined on an endpoint without auth. */
  readonly principal: string | undefined;
  readonly activity: Activity;
  readonly events: SessionEventStore;
  /** Set while the GET stream is away: when its subscriptions end if it does not come back. */
  reconnectGrace: NodeJS.Timeout | undefined;
  /** A shared session's subscriptions (on PostgreSQL). */
  readonly shared: SharedSubscriptions | undefined;
  /** Its client's answers to this copy's requests, wherever they arrive (on PostgreSQL). */
  readonly answers: SessionAnswers | undefined;
  /** Closed here only (shutdown, idle here, ended by another process): the session goes on. */
  leaving: boolean;
}

/**
 * A session being opened for `auth`: a new one counted against `holder` (`holderOf`) until it
 * closes, or, with `resumed`, a shared session opened elsewhere, under its id.
 */
export interface Opening {
  readonly auth: AuthInfo | undefined;
  readonly holder?: string | undefined;
  readonly initialize: unknown;
  readonly resumed?: string;
}

/**
 * How long a session's subscriptions outlive its dropped GET stream: twice the `retry:` its
 * client was told to wait before reconnecting.
 */
export const RECONNECT_GRACE_MS = 2 * SSE_RETRY_MS;
