/**
 * What the relay sends on the bus, as JSON. `e` is the stream's creation time (a stream made
 * again starts its positions over) and `s` a position in it: a change's batch, or the last
 * batch the relay routed.
 */

/** How often the relay says where it stands: a fence replays at most this much of the stream. */
export const BEAT_MS = 100;

/**
 * How long a process hears no beat before it says no relay routes to the bus: longer than a
 * relay's takeover of the slot (about 2 s), which a process rides out without a word.
 */
export const SILENCE_MS = 5_000;

/** The relay's heartbeat, on `beat`: where it stands, even when nothing changes. */
export interface Beat {
  readonly e: string;
  readonly s: number;
}

/** One payload of the change feed, on each of its routes: the `i`th of batch `s`. */
export interface RoutedChange {
  readonly e: string;
  readonly s: number;
  readonly i: number;
  readonly p: string;
}

/** A batch of payloads, as the stream keeps it at its position. */
export interface LoggedChanges {
  readonly e: string;
  readonly p: readonly string[];
}
