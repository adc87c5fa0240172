import { AsyncLocalStorage } from "node:async_hooks";

/** The HTTP request a log line is written for: its id, and who sent it once that is known. */
export interface RequestContext {
  readonly id: string;
  /** The verified principal's client id; set by the front door once the token is checked. */
  principal?: string;
  /** The TCP connection it came on (`address:port`): what counts an unauthenticated client. */
  readonly connection?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();
let served = 0;

/** Runs `handle` as a new request, come on `connection`: every log line written while it runs names it. */
export function asNewRequest<T>(handle: (context: RequestContext) => T, connection?: string): T {
  const context: RequestContext = {
    id: `r${++served}`,
    ...(connection !== undefined && { connection }),
  };
  return storage.run(context, () => handle(context));
}

/** The request being served, if any (a line written for a write's re-run may have none). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
