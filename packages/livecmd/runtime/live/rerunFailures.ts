import { cutText } from "../text/cutText.ts";

/** The re-runs of one command that threw in one burst: how many, and the first of them to start. */
export interface RerunFailure {
  readonly command: string;
  readonly failures: number;
  readonly error: unknown;
  readonly args: readonly unknown[];
}

/**
 * The re-runs that threw in the burst draining now, per command: told once per command when the
 * burst ends, however many threw.
 */
export class BurstFailures {
  readonly #tell: (failure: RerunFailure) => void;
  /** Per command, the failures so far and the start order of the first re-run that threw. */
  readonly #byCommand = new Map<string, { failure: RerunFailure; started: number }>();

  constructor(tell: (failure: RerunFailure) => void) {
    this.#tell = tell;
  }

  /**
   * A re-run, the `started`th to start, threw. "The first" is the first to start, not the first
   * to throw: concurrent re-runs on a pool of connections end in any order, and the report
   * should not depend on it.
   */
  add(command: string, args: readonly unknown[], error: unknown, started: number): void {
    const earlier = this.#byCommand.get(command);
    const failures = (earlier?.failure.failures ?? 0) + 1;
    const first =
      earlier && earlier.started < started
        ? earlier
        : { failure: { command, error, args }, started };
    this.#byCommand.set(command, {
      failure: { ...first.failure, failures },
      started: first.started,
    });
  }

  /** The burst ended: one report per command whose re-runs threw. */
  report(): void {
    for (const { failure } of this.#byCommand.values()) this.#tell(failure);
    this.#byCommand.clear();
  }
}

export function logRerunError(failure: RerunFailure): void {
  process.stderr.write(`livecmd: ${describeRerunFailure(failure)}\n`);
}

/** What went wrong in a burst's re-runs of one command, for a log line or a server's `onerror`. */
export function describeRerunFailure({ command, failures, error, args }: RerunFailure): string {
  const message = error instanceof Error ? error.message : String(error);
  const others =
    failures === 1 ? "" : `; so did ${failures - 1} more re-runs of ${command} in this burst`;
  return `re-running ${command}(${JSON.stringify(args).slice(1, -1)}) for its subscribers failed: ${cutText(message, 300)}${others}; the subscriptions stay`;
}
