import { natsServer } from "../helpers/natsServer.ts";
import { serveExample } from "../helpers/serveExample.ts";

/** Processes serving the example app beside the checker's own, all of them on one bus. */
export interface BusServers {
  readonly urls: readonly URL[];
  close(): void;
}

/**
 * A nats-server of this run's own, set as `LIVECMD_BUS` for this process (before it opens its
 * app, so that the checker's app is on the bus too).
 */
export async function startBus(): Promise<string> {
  const nats = await natsServer();
  if (!nats.server) throw new Error(nats.skip);
  process.env.LIVECMD_BUS = nats.server.url;
  return nats.server.url;
}

/** `count` more processes serving the example app on `databaseUrl`, on the bus at `bus`. */
export async function busServers(
  count: number,
  databaseUrl: string,
  bus: string,
): Promise<BusServers> {
  const served = Array.from({ length: count }, () =>
    serveExample(databaseUrl, { LIVECMD_BUS: bus }),
  );
  const close = () => {
    for (const { child } of served) child.kill("SIGKILL");
  };
  try {
    return { urls: await Promise.all(served.map(({ url }) => url)), close };
  } catch (error) {
    close();
    throw error;
  }
}
