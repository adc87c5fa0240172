import { clientRefusal } from "../sdkAdapter/index.ts";
import type { ServerLog } from "./serverLog.ts";

/** How long the refusals of one kind after its first are counted before one line tells them. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;

/**
 * The log of requests refused for the client's own fault, which the SDK's serving entries report
 * through `onerror` as if they were the server's (`clientRefusal`). They were answered, and
 * the server is well: a `warn` line for the first of each kind, and one counting the others of
 * that kind when `windowMs` is up, so that a client sending garbage in a loop does not fill the
 * log or bury the server's own errors.
 */
export class RefusalLog {
  readonly #log: ServerLog;
  readonly #windowMs: number;
  /** Each kind refused in the current window, and how many more since its first. */
  readonly #more = new Map<string, number>();

  constructor(log: ServerLog, windowMs = REFUSAL_LOG_WINDOW_MS) {
    this.#log = log;
    this.#windowMs = windowMs;
  }

  /** An SDK entry's `onerror`: a client's refusal logged here, any other error to `onerror`. */
  or(onerror: (error: Error) => void): (error: Error) => void {
    return (error) => {
      const refusal = clientRefusal(error);
      if (refusal === undefined) onerror(error);
      else this.refused(refusal.kind, refusal.message);
    };
  }

  refused(kind: string, message: string): void {
    const more = this.#more.get(kind);
    if (more !== undefined) {
      this.#more.set(kind, more + 1);
      return;
    }
    this.#more.set(kind, 0);
    const seconds = this.#windowMs / 1000;
    this.#log.warn(`refused a client's request (${kind}): ${message}`);
    setTimeout(() => {
      const counted = this.#more.get(kind) ?? 0;
      this.#more.delete(kind);
      if (counted > 0)
        this.#log.warn(
          `refused ${counted} more client requests (${kind}) in the last ${seconds} s`,
        );
    }, this.#windowMs).unref();
  }
}
