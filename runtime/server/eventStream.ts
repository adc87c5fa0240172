/** Whether the response is a server-sent event stream (a listen stream, a legacy push stream). */
export function isEventStream(response: Response): boolean {
  return (
    response.body !== null &&
    (response.headers.get("content-type")?.startsWith("text/event-stream") ?? false)
  );
}

/**
 * The event stream with `onEnd` called once when it ends: the server closed it, or the client
 * went away (node:http cancels the body when the socket closes).
 */
export function whenStreamEnds(response: Response, onEnd: () => void): Response {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
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
