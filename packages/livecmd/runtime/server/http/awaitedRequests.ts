import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * How long a drain waits for a connection accepted before it stopped listening to bring its
 * request. A balancer sends its request as it connects, so its requests come within
 * milliseconds; a client that sends nothing for this long is let go.
 */
export const ARRIVAL_GRACE_MS = 1_000;

/**
 * The connections of a server that may still bring a request: accepted and carrying none (its
 * first still on its way, or between two on a keep-alive connection).
 *
 * A drain must not stop the endpoint while one of them can still deliver a request: a balancer
 * that connected just before the server stopped listening has already sent its request, and
 * would get a 503 for a request it may not retry (nginx retries no POST). So a drain waits for
 * them to start their request or close, and from then on every response ends its connection
 * (`Connection: close`), so that no further request comes on it.
 */
export class AwaitedRequests {
  readonly #waiting = new Set<Socket>();
  #draining = false;
  #settled: (() => void) | undefined;

  constructor(server: Server) {
    server.on("connection", (socket: Socket) => {
      this.#waiting.add(socket);
      socket.once("close", () => this.#carrying(socket));
    });
    server.on("request", (request: IncomingMessage, response: ServerResponse) =>
      this.#answering(request.socket, response),
    );
  }

  /**
   * From now on each response closes its connection. Resolves once no connection may bring a
   * request (call the server's `close()` at once: it ends those that are idle), or after
   * `graceMs`.
   */
  drain(graceMs: number): Promise<void> {
    this.#draining = true;
    return new Promise((resolve) => {
      const timer = setTimeout(settle, graceMs);
      function settle(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#settled = settle;
      this.#check();
    });
  }

  #answering(socket: Socket, response: ServerResponse): void {
    this.#carrying(socket);
    // The endpoint's own answers say so themselves (`HttpEndpoint`); this is for the rest.
    if (this.#draining) response.setHeader("connection", "close");
    // A keep-alive connection may bring another request once this one is answered.
    response.once("finish", () => {
      if (socket.writable) this.#waiting.add(socket);
    });
  }

  #carrying(socket: Socket): void {
    this.#waiting.delete(socket);
    this.#check();
  }

  #check(): void {
    if (this.#waiting.size === 0) this.#settled?.();
  }
}
