/** What a group last "returned" when its run threw; no JSON text looks like it. */
export const FAILED = "\u0000failed";

/** What a watched (command, arguments) returns now, as its group last ran it. */
export interface LastResult {
  /** Its JSON text (`resultText`), or `FAILED` when the run threw. */
  readonly text: string;
  /** The message of the run that threw, when `text` is `FAILED`. */
  readonly failure?: string;
  /** When a re-run last found it changed (ms since the epoch); undefined before the first change. */
  readonly changedAt?: number;
}
