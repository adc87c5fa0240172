import { SILENCE_MS } from "./busMessages.ts";

/**
 * Whether a process on the bus hears a relay: its beat, 10 times a second. Silent for
 * `SILENCE_MS` while connected, it says so once: a process serving the database without the
 * bus relays by NOTIFY alone, which no process on the bus hears, and changes reach none here.
 */
export class RelayHeartbeat {
  /** When a beat was last heard (or the count began: started, connected again). */
  #lastAt = Date.now();
  /** Since when no relay has been heard, once that has been said. */
  #silentSince: number | undefined;
  #check: NodeJS.Timeout | undefined;

  constructor(
    private readonly where: string,
    /** Whether the connection is up: while it is down no beat can come, and the gap is its own. */
    private readonly connected: () => boolean,
    private readonly log: (line: string) => void,
  ) {}

  start(): void {
    this.#lastAt = Date.now();
    this.#check = setInterval(() => this.#look(), SILENCE_MS / 5);
    this.#check.unref();
  }

  /** A beat heard; how many seconds no relay had been, when that had been said. */
  heard(): number | undefined {
    this.#lastAt = Date.now();
    if (this.#silentSince === undefined) return undefined;
    const silent = secondsSince(this.#silentSince);
    this.#silentSince = undefined;
    return silent;
  }

  /** The connection is back: the count begins again. */
  reconnected(): void {
    this.#lastAt = Date.now();
  }

  /** Why changes do not reach this process, while no relay is heard. */
  get problem(): string | undefined {
    if (this.#silentSince === undefined) return undefined;
    return `no relay routes this database's changes to the bus (none heard for ${secondsSince(this.#silentSince)} s)`;
  }

  stop(): void {
    clearInterval(this.#check);
  }

  #look(): void {
    if (this.#silentSince !== undefined || !this.connected()) return;
    if (Date.now() - this.#lastAt < SILENCE_MS) return;
    this.#silentSince = this.#lastAt;
    this.log(
      `livecmd: no relay has routed this database's changes to the bus at ${this.where} for ${SILENCE_MS / 1000} s, so none reach this process: the relay died and none has taken over yet, or a process serving the same database without the bus (LIVECMD_BUS or postgres({ bus }) unset) relays them by NOTIFY alone, which no process on the bus hears (give every process the same bus); /healthz answers 503 until a relay is heard`,
    );
  }
}

function secondsSince(time: number): number {
  return Math.round((Date.now() - time) / 1000);
}
