/**
 * The requests in progress at an endpoint, so that a shutdown lets them finish. A request is in
 * progress until its answer is given, or, when that is an event stream (progress, a
 * confirmation's question), until the stream ends; the streams that stand open (2025 GET
 * streams, 2026-07-28 listens) are not counted: a shutdown ends them itself.
 */
export class InProgress {
  #open = 0;
  #changed: (() => void) | undefined;

  /** Counts a request in; returns what counts it out (once, however often called). */
  begin(): () => void {
    this.#open++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#open--;
      this.#changed?.();
    };
  }

  /** Resolves when no request is in progress, or after `deadlineMs`. */
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
