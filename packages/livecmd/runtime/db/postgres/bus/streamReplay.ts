import type { TableChange } from "../../keyedAccess.ts";
import { isCaughtUpMarker } from "../changes/caughtUpMarker.ts";
import { changeOfPayload } from "../changes/changePayload.ts";
import { ensuredStream, type BusConnection } from "./busConnection.ts";
import type { LoggedChanges } from "./busMessages.ts";

/**
 * The longest a replay reads: one that has not reached the stream's end by then (its
 * connection cut off as a slow consumer midway) gives up, and its caller re-runs what it watches.
 */
const REPLAY_LIMIT_MS = 10_000;

/** What a replay found: the stream's end it read to, or that the stream no longer holds the start. */
export type Replayed =
  | { readonly held: true; readonly last: number }
  | { readonly held: false; readonly last: number; readonly epoch: string };

/**
 * Reads the stream of `epoch` after position `from`, up to its end now, and tells `changes` each
 * batch's changes. Tells nothing when the stream was made again since, or no longer holds
 * `from + 1` (its oldest changes go after an hour), or the end is not reached within
 * `REPLAY_LIMIT_MS`: the caller re-runs what it watches.
 */
export async function replayStream(
  bus: BusConnection,
  from: number,
  epoch: string | undefined,
  changes: (batch: TableChange[]) => void,
): Promise<Replayed> {
  const stream = await ensuredStream(bus);
  const { first_seq: first, last_seq: last } = stream.state;
  if (stream.created !== epoch || first > from + 1)
    return { held: false, last, epoch: stream.created };
  if (last <= from) return { held: true, last };
  const consumer = await bus.jetstream.consumers.get(bus.subjects.stream, {
    opt_start_seq: from + 1,
    deliver_policy: bus.library.jetstream.DeliverPolicy.StartSequence,
  });
  const messages = await consumer.consume();
  const limit = setTimeout(() => void messages.close(), REPLAY_LIMIT_MS);
  let reached = false;
  try {
    for await (const message of messages) {
      const { p } = message.json<LoggedChanges>();
      changes(p.filter((payload) => !isCaughtUpMarker(payload)).map(changeOfPayload));
      if ((reached = message.seq >= last)) break;
    }
  } finally {
    clearTimeout(limit);
    await messages.close();
  }
  return reached ? { held: true, last } : { held: false, last, epoch: stream.created };
}
