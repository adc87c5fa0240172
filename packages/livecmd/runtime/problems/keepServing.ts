import { cutText } from "../text/cutText.ts";

/** How long a problem that keeps happening stays quiet after a line about it. */
export const PROBLEM_QUIET_MS = 60_000;

/** Where livecmd's lines go unless a database was given a logger of its own (`postgres(url, { log })`). */
export function logLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * One kind of problem that may happen over and over (a bad row in the change log, a timer that
 * throws): its first occurrence is logged at once, the next ones are counted, and a line with
 * the count (and the last of them) is written at most once per `PROBLEM_QUIET_MS`. A storm of
 * them (a process writing bad rows in a loop) costs a line a minute, never a line each.
 */
export class RecurringProblem {
  #quietUntil = -Infinity;
  #unsaid = 0;

  constructor(
    private readonly log: (line: string) => void = logLine,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** One more occurrence, described by `line` (a whole log line, said when it is the first). */
  happened(line: string): void {
    const now = this.now();
    if (now < this.#quietUntil) {
      this.#unsaid += 1;
      return;
    }
    const unsaid = this.#unsaid;
    this.#unsaid = 0;
    this.#quietUntil = now + PROBLEM_QUIET_MS;
    this.log(unsaid === 0 ? line : `${line} (and ${unsaid} more like it since the last line)`);
  }
}

/**
 * `callback` as the live path runs it (a timer, a driver's event, a deferred turn): whatever it
 * throws is logged (`failureLog`) and the process keeps serving. Uncaught there, one bad row or
 * one broken listener would end the process and every client's session with it. `what` says
 * what the callback does: "polling the SQLite change log".
 */
export function keepServing<Args extends unknown[]>(
  what: string,
  callback: (...args: Args) => void,
  log: (line: string) => void = logLine,
): (...args: Args) => void {
  const failed = failureLog(what, log);
  return (...args) => {
    try {
      callback(...args);
    } catch (error) {
      failed(error);
    }
  };
}

/**
 * What logs the failures of one part of the live path, once and then counted
 * (`RecurringProblem`): for a promise's rejection (`.catch(failed)`), as `keepServing` does for
 * a callback's throw.
 */
export function failureLog(
  what: string,
  log: (line: string) => void = logLine,
): (error: unknown) => void {
  const problem = new RecurringProblem(log);
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    problem.happened(`livecmd: ${what} failed: ${cutText(message, 300)}; livecmd keeps serving`);
  };
}
