import {
  MissingRequiredClientCapabilityError,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";

/** A refusal of the client's own making: its kind, and what it was, in one line. */
export interface ClientRefusal {
  readonly kind: string;
  readonly message: string;
}

/**
 * A refusal of the client's own making that an SDK serving entry reports through its `onerror`
 * as it does its own failures (a request whose headers and body disagree, a 2025 request at the
 * 2026-only door, a media type, a stdio line that is JSON but no JSON-RPC message), or undefined
 * for any other error. Read from the classes and texts of `@modelcontextprotocol/server` 2.4,
 * which `test/unit/sdk-contract.test.ts` holds.
 */
export function clientRefusal(error: Error): ClientRefusal | undefined {
  const { message } = error;
  if (error instanceof UnsupportedProtocolVersionError)
    return { kind: "unsupported-protocol-version", message };
  if (error instanceof MissingRequiredClientCapabilityError)
    return { kind: "missing-client-capability", message };
  // The stdio reader's zod dump of the line, many lines long: what it means is enough.
  if (error.name === "ZodError")
    return { kind: "unreadable-message", message: "a line that is not a JSON-RPC message" };
  for (const [pattern, kind] of REPORTED) {
    const match = pattern.exec(message);
    // A cell the SDK named goes in the kind, and out of the message.
    if (match && kind === undefined)
      return { kind: match[1]!, message: message.slice(match[0].length).replace(/^: /, "") };
    if (match) return { kind: kind!, message };
  }
  return undefined;
}

/** The SDK's reports of refusals, and their kind (else the refusal's own `cell`, captured). */
const REPORTED: readonly (readonly [RegExp, string?])[] = [
  [/^Rejected inbound request \(([\w-]+)\)/],
  [/^Rejected 2025-era request on a modern-only (?:endpoint|stdio connection) \(([\w-]+)\)/],
  [/^Unsupported Media Type/, "unsupported-media-type"],
  [/^Discarded a (?:JSON-RPC response|notification)/, "discarded-message"],
  [/^subscriptions\/listen refused: subscription limit reached/, "listen-limit"],
];
