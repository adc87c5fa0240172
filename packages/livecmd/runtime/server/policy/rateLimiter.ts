import type { RateLimit } from "../../model/command.ts";

/**
 * Sliding-window limits per command, shared by `resources/read` and `tools/call` of the same
 * command in this process (a read is a run like a call; the RFC counts both).
 */
export class RateLimiter {
  readonly #runs = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Records a run of `command` and returns 0, or returns how long to wait and records nothing. */
  take(command: string, limit: RateLimit | undefined): number {
    if (!limit) return 0;
    const now = this.#now();
    const recent = (this.#runs.get(command) ?? []).filter((at) => at > now - limit.perMs);
    if (recent.length >= limit.max) {
      this.#runs.set(command, recent);
      return (recent[recent.length - limit.max] ?? now) + limit.perMs - now;
    }
    recent.push(now);
    this.#runs.set(command, recent);
    return 0;
  }
}

const limiters = new WeakMap<object, RateLimiter>();

/** The one limiter of an app in this process, whichever transports serve it. */
export function rateLimiterOf(app: object): RateLimiter {
  let limiter = limiters.get(app);
  if (!limiter) {
    limiter = new RateLimiter();
    limiters.set(app, limiter);
  }
  return limiter;
}
