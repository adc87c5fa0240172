import type { TableChange } from "../../keyedAccess.ts";
import { isCaughtUpMarker } from "../changes/caughtUpMarker.ts";
import { changeOfPayload } from "../changes/changePayload.ts";
import { ensuredStream, type BusConnection } from "./busConnection.ts";
import type { LoggedChanges } from "./busMessages.ts";

/** What a replay found: the stream's end it read to, or that the stream no longer holds the start. */
export type Replayed =
  | { readonly held: true; readonly last: number }
  | { readonly held: false; readonly last: number; readonly epoch: string };

/**
 * Reads the stream of `epoch` after position `from`, up to its end now, and tells `changes` each
 * batch's changes. Tells nothing when the stream was made again since, or no longer holds
 * `from + 1` (its oldest changes go after an hour): the caller re-runs what it watches.
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
  for await (const message of messages) {
    const { p } = message.json<LoggedChanges>();
    changes(p.filter((payload) => !isCaughtUpMarker(payload)).map(changeOfPayload));
    if (message.seq >= last) break;
  }
  await messages.close();
  return { held: true, last };
}
