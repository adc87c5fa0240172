import type * as NatsCore from "@nats-io/transport-node";
import type * as NatsJetStream from "@nats-io/jetstream";

/** The NATS client's two packages: connections, and JetStream's streams and consumers. */
export interface NatsLibrary {
  readonly core: typeof NatsCore;
  readonly jetstream: typeof NatsJetStream;
}

const INSTALL = "npm install @nats-io/transport-node@^3.4 @nats-io/jetstream@^3.4";

/**
 * The NATS client, loaded on demand: optional peer dependencies, so that an app without a bus
 * needs neither (as `pg` is loaded only for PostgreSQL).
 */
export async function loadNats(): Promise<NatsLibrary> {
  try {
    const [core, jetstream] = await Promise.all([
      import("@nats-io/transport-node"),
      import("@nats-io/jetstream"),
    ]);
    return { core, jetstream };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(`livecmd: postgres({ bus }) needs the NATS client; install it: ${INSTALL}`, {
      cause: error,
    });
  }
}
