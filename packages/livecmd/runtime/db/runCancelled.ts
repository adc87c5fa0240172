/**
 * What a statement throws once its run was cancelled (`ctx.signal` fired): an `AbortError`, as
 * `fetch` throws, whatever the signal's reason (the SDK aborts with the client's reason string,
 * or with "Connection closed").
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
  throw new DOMException(`the request was cancelled (${reason}); no statement runs`, "AbortError");
}
