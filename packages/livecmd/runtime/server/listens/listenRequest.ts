import type { JSONRPCRequest } from "@modelcontextprotocol/server";

/**
 * The `resourceSubscriptions` of a 2026-07-28 `subscriptions/listen` request, or undefined for
 * any other message, and for a filter the SDK will refuse anyway (left untouched, so it does).
 */
export function requestedUris(message: unknown): string[] | undefined {
  if (!isListenRequest(message)) return undefined;
  const notifications = (message.params as { notifications?: unknown } | undefined)?.notifications;
  if (typeof notifications !== "object" || notifications === null) return undefined;
  const uris = (notifications as { resourceSubscriptions?: unknown }).resourceSubscriptions;
  return Array.isArray(uris) && uris.every((uri) => typeof uri === "string") ? uris : undefined;
}

/**
 * The listen request with its filter narrowed to `honored`. The SDK acknowledges
 * `resourceSubscriptions` verbatim (and drops it when empty), so narrowing the request is what
 * makes the acknowledgement tell the client which URIs are watched.
 */
export function narrowedTo(message: JSONRPCRequest, honored: readonly string[]): JSONRPCRequest {
  const params = message.params as { notifications: Record<string, unknown> };
  return {
    ...message,
    params: {
      ...params,
      notifications: {
        ...params.notifications,
        resourceSubscriptions: [...honored],
      },
    },
  };
}

function isListenRequest(message: unknown): message is JSONRPCRequest {
  const candidate = message as Partial<JSONRPCRequest> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.method === "subscriptions/listen" &&
    candidate.id !== undefined
  );
}

/** The id of a 2026-07-28 `subscriptions/listen` request, or undefined for any other message. */
export function listenId(message: unknown): string | number | undefined {
  return isListenRequest(message) ? (message.id as string | number) : undefined;
}
