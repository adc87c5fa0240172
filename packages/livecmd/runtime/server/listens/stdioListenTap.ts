import {
  isJSONRPCNotification,
  isJSONRPCResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import type { Watches } from "../../live/watches.ts";
import type { RefusalWire } from "../../live/watchRefusal.ts";
import { narrowedTo, requestedUris } from "./listenRequest.ts";

/**
 * The stdio connection's wire as the SDK's `serveStdio` entry sees it, with the 2026-07-28
 * listens tracked on the way. The entry answers `subscriptions/listen` itself, acknowledges the
 * filter verbatim and tells nobody which filters are open; so each inbound listen is handed to
 * the connection's watches (`LiveRoom`: at most 64 URIs across its open listens) and has its
 * `resourceSubscriptions` narrowed to the URIs watched before the entry sees it, and a listen's
 * watches end when the client cancels it (`notifications/cancelled`), when the entry
 * answers it (an error, or the graceful end at shutdown) and when the wire closes.
 *
 * Inbound messages keep their order: while a listen waits for its URIs' first runs, later
 * messages queue behind it, so a write the client sends after listening is seen by a baseline
 * taken before it.
 */
export class StdioListenTap implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly #wire: Transport;
  readonly #watches: Watches;
  readonly #servesListens: () => boolean;
  readonly #wireErrors: RefusalWire;
  #queue: Promise<void> = Promise.resolve();
  #queued = 0;

  /**
   * `servesListens` is false once the connection is pinned to the 2025 era, which has no
   * listens; `wireErrors` words a refused listen's answer.
   */
  constructor(
    wire: Transport,
    watches: Watches,
    servesListens: () => boolean,
    wireErrors: RefusalWire,
  ) {
    this.#wire = wire;
    this.#wireErrors = wireErrors;
    this.#watches = watches;
    this.#servesListens = servesListens;
  }

  start(): Promise<void> {
    this.#wire.onmessage = (message, extra) => this.#receive(message, extra);
    this.#wire.onerror = (error) => this.onerror?.(error);
    this.#wire.onclose = () => {
      this.#watches.endAll();
      this.onclose?.();
    };
    return this.#wire.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // A response to a listen id is the end of that listen: refused, or ended by the server.
    if (isJSONRPCResponse(message) && message.id !== undefined) this.#watches.end(message.id);
    return this.#wire.send(message, options);
  }

  close(): Promise<void> {
    return this.#wire.close();
  }

  setProtocolVersion = (version: string): void => this.#wire.setProtocolVersion?.(version);

  get sessionId(): string | undefined {
    return this.#wire.sessionId;
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const narrowing = this.#servesListens() && requestedUris(message) !== undefined;
    if (!narrowing && this.#queued === 0) return this.#deliver(message, extra);
    this.#queued += 1;
    this.#queue = this.#queue
      .then(async () => {
        const delivered = narrowing ? await this.#narrow(message as JSONRPCRequest) : message;
        if (delivered) this.#deliver(delivered, extra);
      })
      .catch((error: unknown) =>
        this.onerror?.(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => void (this.#queued -= 1));
  }

  /** The listen narrowed to what is watched; undefined when a limit leaves no room, answered here. */
  async #narrow(listen: JSONRPCRequest): Promise<JSONRPCMessage | undefined> {
    const listened = await this.#watches.listen(listen.id, requestedUris(listen)!, undefined);
    if ("refused" in listened) {
      const errors = this.#wireErrors;
      await this.#wire.send(errors.errorMessage(errors.limitReached(listened.refused), listen.id));
      return undefined;
    }
    return narrowedTo(listen, listened.watched);
  }

  #deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.#watches.end(requestId);
    }
    this.onmessage?.(message, extra);
  }
}
