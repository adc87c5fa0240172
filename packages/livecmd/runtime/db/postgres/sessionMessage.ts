/**
 * What one serving process tells the others about a shared 2025-era session, on
 * `SESSIONS_CHANNEL`: its subscriptions changed (the process holding its GET stream watches
 * what the table now holds), one was ended (that process stops watching it at once, before any
 * change notified after it arrives on the same connection), a process took its GET stream (any other that held it lets it go),
 * it was closed (every process drops its copy), or its client answered a request of another
 * process's copy (`answer`, a JSON-RPC response whose id names that copy: `SessionAnswers`).
 */
export type SessionMessage =
  | { readonly session: string; readonly subscriptions: true }
  | { readonly session: string; readonly unsubscribed: string }
  | { readonly session: string; readonly stream: string }
  | { readonly session: string; readonly closed: true }
  | { readonly session: string; readonly answer: RelayedAnswer };

/** A client's answer relayed to the process whose request it answers (`server/sessions/sessionAnswers.ts`). */
export interface RelayedAnswer {
  readonly jsonrpc: "2.0";
  readonly id: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** The message a payload on `SESSIONS_CHANNEL` carries; undefined for anything else. */
export function sessionMessageOf(payload: string): SessionMessage | undefined {
  try {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    if (typeof parsed.session !== "string") return undefined;
    if (
      parsed.subscriptions === true ||
      parsed.closed === true ||
      typeof parsed.stream === "string" ||
      typeof parsed.unsubscribed === "string" ||
      typeof (parsed.answer as { id?: unknown } | null | undefined)?.id === "string"
    )
      return parsed as unknown as SessionMessage;
  } catch {
    // Not ours: nothing to do.
  }
  return undefined;
}
