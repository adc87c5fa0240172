import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";

/**
 * An error as one line: the JSON-RPC code and message of the server's answer, or what failed
 * followed by its causes ("fetch failed" alone does not say that the port is refused).
 */
export function errorText(error: unknown, timeoutMs: number): string {
  if (error instanceof ProtocolError) return `${error.code} ${error.message}`;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return `no answer within ${timeoutMs / 1000} s`;
  if (!(error instanceof Error)) return String(error);
  const messages: string[] = [];
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (!messages.some((message) => message.includes(cause.message))) messages.push(cause.message);
  }
  return messages.join(": ");
}

/** A JSON-RPC "method not found": the server does not serve the method at all. */
export function isMethodNotFound(error: unknown): boolean {
  return error instanceof ProtocolError && error.code === -32601;
}
