import type { BusConnection } from "./busConnection.ts";
import { ensuredStream } from "./busConnection.ts";
import { BEAT_MS, type Beat, type LoggedChanges, type RoutedChange } from "./busMessages.ts";

/** nats-server's default largest message, when the server has not said its own. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Room for a logged message's JSON around its payloads and JetStream's headers. */
const ENVELOPE_BYTES = 1024;

/**
 * The relay's side of the bus: each batch of the change feed's payloads kept once in the stream
 * (at a position, its commit's LSN as the message id, so a batch sent again by the next relay is
 * kept once), then each payload published on its routes (`BusSubjects.routesOf`), and a
 * heartbeat with the last position routed.
 */
export class BusPublisher {
  #epoch = "";
  #routed = 0;
  #beat: NodeJS.Timeout | undefined;

  constructor(private readonly bus: BusConnection) {}

  async start(): Promise<void> {
    const stream = await ensuredStream(this.bus);
    this.#epoch = stream.created;
    this.#routed = stream.state.last_seq;
    this.#beat = setInterval(() => this.#sayWhere(), BEAT_MS);
    this.#beat.unref();
  }

  /**
   * Keeps `payloads` in the stream, in as many messages as the server's largest takes, then
   * routes each; rejects when the stream did not take them.
   */
  async publish(
    payloads: readonly string[],
    lsn: string | undefined,
    keysOf: (table: string) => ReadonlySet<string> | undefined,
  ): Promise<void> {
    const largest = (this.bus.nats.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - ENVELOPE_BYTES;
    const chunks = chunked(payloads, largest);
    for (const [n, chunk] of chunks.entries())
      await this.#publish(chunk, lsn === undefined ? undefined : `${lsn}/${n}`, keysOf);
  }

  async #publish(
    payloads: readonly string[],
    id: string | undefined,
    keysOf: (table: string) => ReadonlySet<string> | undefined,
  ): Promise<void> {
    const { jetstream, nats, subjects } = this.bus;
    const logged: LoggedChanges = { e: this.#epoch, p: payloads };
    const ack = await jetstream.publish(
      subjects.log,
      JSON.stringify(logged),
      id === undefined ? undefined : { msgID: id },
    );
    if (ack.seq <= this.#routed && !ack.duplicate)
      throw new Error("the bus's stream was made again (its positions start over)");
    payloads.forEach((p, i) => {
      const routed: RoutedChange = { e: this.#epoch, s: ack.seq, i, p };
      const data = JSON.stringify(routed);
      for (const subject of subjects.routesOf(p, keysOf)) nats.publish(subject, data);
    });
    this.#routed = Math.max(this.#routed, ack.seq);
  }

  stop(): void {
    clearInterval(this.#beat);
  }

  #sayWhere(): void {
    if (this.bus.nats.isClosed()) return;
    const beat: Beat = { e: this.#epoch, s: this.#routed };
    this.bus.nats.publish(this.bus.subjects.beat, JSON.stringify(beat));
  }
}

/**
 * `payloads` in runs whose JSON list stays under `bytes` (a payload is at most 8,000 bytes, so
 * each run holds one at least).
 */
function chunked(payloads: readonly string[], bytes: number): string[][] {
  const chunks: string[][] = [[]];
  let size = 0;
  for (const payload of payloads) {
    const length = Buffer.byteLength(JSON.stringify(payload)) + 1;
    if (size + length > bytes && chunks.at(-1)!.length > 0) {
      chunks.push([]);
      size = 0;
    }
    chunks.at(-1)!.push(payload);
    size += length;
  }
  return chunks;
}
