import type { EventId, EventStore, JSONRPCMessage, StreamId } from "@modelcontextprotocol/server";

/** The most events one 2025 session keeps for a client that reconnects, and their total size. */
export const SESSION_EVENTS = { count: 256, bytes: 1024 * 1024 };

interface StoredEvent {
  readonly seq: number;
  readonly streamId: StreamId;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

/**
 * The SDK's `EventStore` for one 2025-era session, bounded: the last `SESSION_EVENTS.count`
 * events (and no more than `SESSION_EVENTS.bytes` of them), so that a client whose stream
 * dropped gets what it missed on `Last-Event-ID`, and a client that never comes back costs a
 * fixed amount. An event id is `seq@streamId`: a client that was away so long that its event
 * was dropped still resumes its stream, from the oldest event kept.
 */
export class SessionEventStore implements EventStore {
  readonly #events: StoredEvent[] = [];
  #seq: number;
  #bytes = 0;

  /** `firstSeq`: where its ids start (a shared session's rise across processes). */
  constructor(firstSeq = 0) {
    this.#seq = firstSeq;
  }

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.#seq;
    // The SDK stores `{}` for the priming event: it marks a place, there is nothing to replay.
    if ("jsonrpc" in message) {
      const bytes = JSON.stringify(message).length;
      this.#events.push({ seq, streamId, message, bytes });
      this.#bytes += bytes;
      while (
        this.#events.length > SESSION_EVENTS.count ||
        (this.#bytes > SESSION_EVENTS.bytes && this.#events.length > 1)
      )
        this.#bytes -= this.#events.shift()!.bytes;
    }
    return Promise.resolve(`${seq}@${streamId}`);
  }

  /** An id for the place `streamId` is at now, with nothing stored: a priming event's. */
  mark(streamId: StreamId): EventId {
    return `${++this.#seq}@${streamId}`;
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(parsed(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = parsed(lastEventId);
    if (!last) throw new Error(`not an event id of this session: ${lastEventId.slice(0, 100)}`);
    for (const event of [...this.#events]) {
      if (event.streamId === last.streamId && event.seq > last.seq)
        await send(`${event.seq}@${event.streamId}`, event.message);
    }
    return last.streamId;
  }
}

function parsed(eventId: EventId): { seq: number; streamId: StreamId } | undefined {
  const at = eventId.indexOf("@");
  const seq = Number(eventId.slice(0, at));
  return at > 0 && Number.isSafeInteger(seq) ? { seq, streamId: eventId.slice(at + 1) } : undefined;
}
