import { randomUUID } from "node:crypto";

/** What every caught-up marker starts with; no table is named like this. */
const CAUGHT_UP = "livecmd caught up ";

/**
 * This process's markers: each a round trip through the change feed (`ANNOUNCE`), told apart
 * from another process's by a random token, since on a bus processes of many machines (and the
 * same pid) hear the same markers.
 */
const OWN = `${CAUGHT_UP}${randomUUID()}.`;

/** A marker of this process's, the `count`th. */
export function caughtUpMarker(count: number): string {
  return `${OWN}${count}`;
}

/** Whether `payload` is some process's marker, not a change. */
export function isCaughtUpMarker(payload: string): boolean {
  return payload.startsWith(CAUGHT_UP);
}
