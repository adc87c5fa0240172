import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";

/**
 * The NOTIFY channel the serving processes tell each other about 2025-era sessions on: a
 * session's subscriptions changed, its GET stream was taken by a process, it was closed
 * (`sessionMessage.ts` reads the payloads).
 */
export const SESSIONS_CHANNEL = "livecmd_sessions";

/**
 * The tables serving processes share in livecmd's schema: 2025-era sessions, their
 * subscriptions, and the confirmations spent.
 */
export const SESSION_TABLES = {
  sessions: `${LIVECMD_SCHEMA}.sessions`,
  subscriptions: `${LIVECMD_SCHEMA}.session_subscriptions`,
  spentConfirmations: `${LIVECMD_SCHEMA}.spent_confirmations`,
} as const;

/**
 * The 2025-era sessions that any serving process can answer: what the client sent in its
 * `initialize` (replayed to a process that has not seen the session), whom it belongs to, when
 * it was last active, and its `resources/subscribe` subscriptions, each with a digest of the
 * result its client was last told of (a process that takes the session over re-runs each and
 * notifies those whose digest differs). Beside them, the accepted confirmations (a
 * `requestState` id until it expires), so that a yes runs its command once on any replica. In
 * livecmd's schema, which the change feed leaves out: writing here notifies no subscription.
 * Installed with the change feed, under its lock.
 */
export function installSessionTables(): string {
  const { sessions, subscriptions, spentConfirmations } = SESSION_TABLES;
  return /* sql */ `
CREATE TABLE IF NOT EXISTS ${sessions} (
  id text PRIMARY KEY,
  principal text,
  initialize jsonb NOT NULL,
  last_active timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sessions_last_active ON ${sessions} (last_active);
CREATE TABLE IF NOT EXISTS ${subscriptions} (
  session_id text NOT NULL REFERENCES ${sessions} (id) ON DELETE CASCADE,
  uri text NOT NULL,
  seen text NOT NULL,
  PRIMARY KEY (session_id, uri)
);
CREATE TABLE IF NOT EXISTS ${spentConfirmations} (
  id text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS spent_confirmations_expires_at ON ${spentConfirmations} (expires_at);
`;
}
