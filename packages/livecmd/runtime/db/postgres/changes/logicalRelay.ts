import type { BusConnection } from "../bus/busConnection.ts";
import { BusPublisher } from "../bus/busPublisher.ts";
import { clientSocket } from "../clientSocket.ts";
import type { PgClient, PgPool } from "../pgLibrary.ts";
import { ensuredSlot, SLOT_BEGAN } from "./logicalSlot.ts";
import { PUBLICATION } from "./logicalFeed.ts";
import { WalPassOn } from "./walPassOn.ts";
import type { OpenWalStream, WalStream } from "./walMessage.ts";

/** Held by the process that relays: one streams the slot, the others wait their turn. */
const RELAY_LOCK = "hashtext('livecmd relay')";

/** How often a process that does not relay tries to (another's relay may have died). */
export const RELAY_RETRY_MS = 2_000;

/**
 * Every serving process runs one: it tries to take the relay lock now and every `retryMs`, and
 * the one that holds it streams the slot and passes each change on to every process (itself
 * included) through the change feed's channel (`WalPassOn`). When the relay dies its lock goes
 * with its connection, and another process takes the slot from where it was confirmed.
 */
export class LogicalRelay {
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #stream: WalStream | undefined;
  /** The attempt under way (or the last): a close waits for it to let go of its connections. */
  #attempting: Promise<void> = Promise.resolve();
  /** The connection holding the relay lock, while this process holds it. */
  #lock: PgClient | undefined;

  constructor(
    private readonly pool: () => PgPool,
    private readonly openStream: OpenWalStream,
    private readonly log: (line: string) => void,
    private readonly retryMs = RELAY_RETRY_MS,
    /** The bus the relay publishes every change on too, when the app has one. */
    private readonly bus?: BusConnection,
  ) {}

  start(): void {
    this.#attempting = this.#attempt();
  }

  /** Whether this process streams the slot now. */
  get relaying(): boolean {
    return this.#stream !== undefined;
  }

  /** Stops relaying, and resolves once the lock's connection is let go (a pool then ends). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    // Unref'd while it relays; what the attempt still does on it is awaited now.
    clientSocket(this.#lock)?.ref?.();
    await this.#stream?.stop();
    await this.#attempting;
  }

  async #attempt(): Promise<void> {
    if (this.#closed) return;
    const lock = await this.#lead().catch((error: Error) => {
      this.log(`livecmd: could not try to relay PostgreSQL's changes (${error.message})`);
      return undefined;
    });
    if (lock) {
      this.#lock = lock;
      try {
        await this.#relay(lock);
      } catch (error) {
        if (!this.#closed)
          this.log(
            `livecmd: relaying PostgreSQL's changes stopped (${(error as Error).message}); a process takes the slot over within ${this.retryMs} ms`,
          );
      } finally {
        this.#stream = undefined;
        this.#lock = undefined;
        lock.release(true);
      }
    }
    if (this.#closed) return;
    this.#retry = setTimeout(() => (this.#attempting = this.#attempt()), this.retryMs);
    this.#retry.unref();
  }

  /** A connection holding the relay lock, or undefined while another process holds it. */
  async #lead(): Promise<PgClient | undefined> {
    const client = await this.pool().connect();
    try {
      const { rows } = await client.query({
        text: `SELECT pg_try_advisory_lock(${RELAY_LOCK}) AS led`,
      });
      if ((rows[0] as { led: boolean }).led) {
        if (!this.#closed) clientSocket(client)?.unref?.();
        return client;
      }
      client.release();
      return undefined;
    } catch (error) {
      client.release(true);
      throw error;
    }
  }

  /** Streams the slot, every statement of the relay on `lock`, the connection it holds the lock on. */
  async #relay(lock: PgClient): Promise<void> {
    if (this.#closed) return;
    // The lock's connection ended under the relay (terminated by the server, cut off): the
    // relay stops and says why, where an error nobody listens for would end the process.
    let lost: Error | undefined;
    lock.on("error", (error) => {
      lost = error;
      void this.#stream?.stop();
    });
    const slot = await ensuredSlot(lock);
    const publisher = this.bus && new BusPublisher(this.bus);
    await publisher?.start();
    try {
      const stream = await this.openStream(slot.name, PUBLICATION);
      this.#stream = stream;
      if (this.#closed || lost) await stream.stop();
      else {
        const passOn = new WalPassOn(lock, stream, slot.confirmed, publisher);
        if (slot.created) passOn.say(SLOT_BEGAN);
        await stream.run((message) => passOn.take(message));
        // A failure to pass on stops the stream, which then ends quietly: said as the relay's.
        if (passOn.failure) throw passOn.failure;
      }
      if (lost) throw lost;
    } finally {
      publisher?.stop();
    }
  }
}
