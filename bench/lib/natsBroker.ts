import { natsServer } from "../../test/helpers/natsServer.ts";
import { processCpuMs } from "./processCpu.ts";

/** What nats-server's `/varz` says of the whole server (the fields the bus bench reads). */
export interface BrokerTotals {
  /** Its resident memory, bytes. */
  mem: number;
  in_msgs: number;
  out_msgs: number;
  subscriptions: number;
}

/** One client connection, as `/connz` lists it (the fields the bus bench reads). */
export interface BrokerConnection {
  /** The name the client gave (livecmd's: `livecmd <pid>`). */
  name?: string;
  out_msgs: number;
  subscriptions: number;
}

/** Debian's nats-server with JetStream and its monitoring port, on 127.0.0.1, for one bench. */
export interface NatsBroker {
  readonly url: string;
  totals(): Promise<BrokerTotals>;
  connections(): Promise<BrokerConnection[]>;
  /** The messages its JetStream streams hold, all together (`/jsz`). */
  stored(): Promise<number>;
  /** Its user + system CPU time so far, ms (from /proc: clock ticks of 10 ms). */
  cpuMs(): number;
  /** The warnings and errors it logged so far (a slow consumer cut off, say). */
  complaints(): string[];
  /** Stops it (its store is removed when the process exits). */
  stop(): Promise<void>;
}

/** Starts nats-server (`natsServer`, the tests' own) and resolves once it takes clients. */
export async function startNatsBroker(): Promise<NatsBroker> {
  const started = await natsServer();
  if (!started.server) throw new Error(started.skip);
  const server = started.server;
  const monitoring = async <T>(page: string): Promise<T> => {
    const response = await fetch(`${server.monitor}/${page}`);
    return (await response.json()) as T;
  };
  return {
    url: server.url,
    totals: () => monitoring<BrokerTotals>("varz"),
    async connections() {
      const page = await monitoring<{ connections: BrokerConnection[] }>("connz?limit=4096");
      return page.connections;
    },
    async stored() {
      return (await monitoring<{ messages: number }>("jsz")).messages;
    },
    cpuMs: () => processCpuMs(server.pid()!),
    complaints: () => server.logged().filter((line) => /\[(WRN|ERR|FTL)\]/.test(line)),
    stop: () => server.stop(),
  };
}
