import type { AppEngine } from "../model/appEngine.ts";
import { NO_DATABASE, UNSEEN_FIX, type ReadSet } from "./readSet.ts";

/**
 * The commands watched whose runs made no statement livecmd saw: each is watched as reading every
 * table, and named once (`onUnseen`), with how many statements of other runs livecmd saw.
 */
export class UnseenReads {
  readonly #engine: AppEngine;
  readonly #onUnseen: (warning: string) => void;
  /** The commands a run of which made no statement livecmd saw, in the order first found. */
  readonly #unseen = new Set<string>();
  /** Statements the runs of watched groups made that livecmd saw, for `unseenReadsWarning`. */
  #statementsSeen = 0;

  constructor(engine: AppEngine, onUnseen: (warning: string) => void) {
    this.#engine = engine;
    this.#onUnseen = onUnseen;
  }

  get commands(): readonly string[] {
    return [...this.#unseen];
  }

  /** A run of `command` ended having read `reads`; one that returned and saw nothing is told. */
  ran(command: string, reads: ReadSet, returned: boolean): void {
    this.#statementsSeen += reads.statements;
    if (returned && reads.unseen) this.#readsUnseen(command, reads);
  }

  /** A run that made no statement livecmd saw is watched as reading every table, and named once. */
  #readsUnseen(command: string, reads: ReadSet): void {
    reads.seeNothing();
    if (this.#unseen.has(command)) return;
    this.#unseen.add(command);
    this.#onUnseen(
      unseenReadsWarning(
        command,
        this.#engine.hasDatabase
          ? { handle: this.#engine.db.handleText(), statements: this.#statementsSeen }
          : undefined,
      ),
    );
  }
}

/**
 * What is said of a live command whose run made no statement livecmd saw, and what to do: where
 * livecmd watches (`AppDatabase.handleText`), and how many statements of other runs it saw there,
 * so that "none of this run's" is not taken for "none at all".
 */
export function unseenReadsWarning(
  command: string,
  watched: { handle: string; statements: number } | undefined,
): string {
  if (!watched) return `${command} is watched, but ${NO_DATABASE}`;
  const { handle, statements } = watched;
  const others = `${statements} ${statements === 1 ? "statement" : "statements"} of other runs`;
  return `${command} is watched, but its run made no statement through ${handle}, where livecmd watches (it saw ${others} there), so every write re-runs it: ${UNSEEN_FIX}`;
}
