import type { SessionMessage } from "../../sharedState.ts";

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
