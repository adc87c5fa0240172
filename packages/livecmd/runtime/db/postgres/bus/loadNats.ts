import type { NatsLibrary } from "./natsLibrary.ts";

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
    // Checked against livecmd's shapes of them here, where the real types are known.
    const library: NatsLibrary = { core, jetstream };
    return library;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(`livecmd: postgres({ bus }) needs the NATS client; install it: ${INSTALL}`, {
      cause: error,
    });
  }
}
