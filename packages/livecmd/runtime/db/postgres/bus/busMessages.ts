/**
 * What the relay sends on the bus, as JSON. `e` is the stream's creation time (a stream made
 * again starts its positions over) and `s` a position in it: a change's batch, or the last
 * batch the relay routed.
 */

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
