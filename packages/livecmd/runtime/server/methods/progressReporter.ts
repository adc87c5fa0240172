import throttle from "lodash.throttle";
import type { ServerContext } from "@modelcontextprotocol/server";

/** At most one `notifications/progress` this often per request: a loop must not flood the client. */
export const PROGRESS_INTERVAL_MS = 100;

export interface ProgressReporter {
  report(done: number, total?: number, message?: string): void;
  /** Sends what is pending, before the result: the token is dead once the request is answered. */
  finish(): void;
}

/**
 * `ctx.progress` of a request that carried a `progressToken`, as `notifications/progress` on
 * the request's own stream (throttled, the first at once and the last one kept); undefined when
 * the client did not ask. A value that does not grow is dropped, as the spec requires.
 */
export function progressReporter(ctx: ServerContext): ProgressReporter | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let last = -Infinity;
  const send = (progress: number, total?: number, message?: string) => {
    if (!(progress > last) || ctx.mcpReq.signal.aborted) return;
    last = progress;
    void ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: {
          progressToken,
          progress,
          ...(total !== undefined && { total }),
          ...(message !== undefined && { message }),
        },
      })
      // A client that went away cannot be told; the signal tells the command.
      .catch(() => {});
  };
  const throttled = throttle(send, PROGRESS_INTERVAL_MS, { leading: true, trailing: true });
  return {
    report: throttled,
    finish() {
      throttled.flush();
      throttled.cancel();
    },
  };
}
