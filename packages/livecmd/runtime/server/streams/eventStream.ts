/** Whether the response is a server-sent event stream (a listen stream, a legacy push stream). */
export function isEventStream(response: Response): boolean {
  return (
    response.body !== null &&
    (response.headers.get("content-type")?.startsWith("text/event-stream") ?? false)
  );
}

/**
 * The event stream with `onEnd` called once when it ends: the server closed it, or the client
 * went away (node:http cancels the body when the socket closes), or `endOn` aborted (its token
 * was revoked: the client sees the stream end).
 */
export function whenStreamEnds(
  response: Response,
  onEnd: () => void,
  endOn?: AbortSignal,
): Response {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      endOn?.addEventListener(
        "abort",
        () => {
          end();
          controller.close();
          void reader.cancel(endOn.reason).catch(() => undefined);
        },
        { once: true },
      );
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        end();
        controller.close();
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** How long a client waits before it reconnects a dropped stream (SSE `retry:`), in milliseconds. */
export const SSE_RETRY_MS = 3000;

let primedStreams = 0;

/**
 * The event stream with the priming event SEP-1699 asks for in front: an event id (`eventId`,
 * one a 2025 session can resume from; a fresh one when absent), the `retry:` delay and empty
 * data (which clients skip). It also gets the response head out at once, where without a first
 * chunk it would wait for the first keep-alive.
 */
export function primed(response: Response, eventId = `livecmd-${++primedStreams}`): Response {
  const priming = new TextEncoder().encode(`id: ${eventId}\nretry: ${SSE_RETRY_MS}\ndata: \n\n`);
  const body = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => controller.enqueue(priming),
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
