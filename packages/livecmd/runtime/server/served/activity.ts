/**
 * Requests in progress and streams open (at an endpoint, in a 2025 session), counted in and
 * out, and since when there have been none: what a session's idle sweep and a shutdown's drain
 * go by.
 */
export class Activity {
  #open = 0;
  #lastEnded = performance.now();
  #changed: (() => void) | undefined;

  /** Counts one in; returns what counts it out (once, however often called). */
  begin(): () => void {
    this.#open++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#open--;
      this.#lastEnded = performance.now();
      this.#changed?.();
    };
  }

  /** Milliseconds without anything open; 0 while something is. */
  idleSince(now: number): number {
    return this.#open > 0 ? 0 : now - this.#lastEnded;
  }

  /** Resolves when nothing is open, or after `deadlineMs`. */
  async finished(deadlineMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (this.#open === 0) resolve();
      };
      this.#changed = check;
      timer = setTimeout(resolve, deadlineMs);
      check();
    });
    this.#changed = undefined;
    clearTimeout(timer);
  }
}
