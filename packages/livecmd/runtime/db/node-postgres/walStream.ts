import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from "pg-logical-replication";
import type { OpenWalStream, WalMessage } from "../postgres/changes/walMessage.ts";
import { clientSocket } from "../postgres/clientSocket.ts";

/**
 * The settings the relay's connection decodes under: values written as the trigger feed's
 * `to_jsonb` writes them (ISO dates, floats in their shortest exact form), whatever the server's.
 */
const DECODING_SETTINGS = "-c DateStyle=ISO -c extra_float_digits=1";

/**
 * Opens a slot's pgoutput stream with pg-logical-replication, on a replication connection made
 * with `connection` (the settings of livecmd's pool). Positions are confirmed only when the
 * relay says (`acknowledge.auto` off, no timed acknowledgement: it would confirm what was
 * received, not what was passed on), and each message waits for the one before it.
 */
export function walStreamOf(connection: Readonly<Record<string, unknown>>): OpenWalStream {
  return async (slot, publication) => {
    const service = new LogicalReplicationService(
      { ...connection, application_name: "livecmd relay", options: DECODING_SETTINGS },
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: true } },
    );
    const plugin = new TextPgoutput({
      protoVersion: 1,
      publicationNames: [publication],
      messages: true,
    });
    // Messages are decoded as they arrive and handed over in turn: a keepalive is sent on at
    // once, and says whether any message before it still waits.
    let handed = 0;
    // A stop asked while the service still connects is done as its streaming starts: ending a
    // pg client that is connecting may never settle, and left alone the connection would hold
    // the slot (and keep the process alive).
    let stopped = false;
    const socketHolder = () => (service as unknown as { _client?: unknown })._client;
    let streaming = false;
    service.on("start", () => {
      streaming = true;
      clientSocket(socketHolder())?.unref?.();
      if (stopped) void service.stop();
    });
    return {
      run: (each) =>
        new Promise<void>((resolve, reject) => {
          if (stopped) return resolve();
          service.on("data", async (_lsn: string, message: Pgoutput.Message) => {
            await each(message as WalMessage);
            handed += 1;
          });
          service.on("heartbeat", (lsn: string) =>
            each({ tag: "keepalive", lsn, behindNothing: handed === plugin.decoded }),
          );
          service.on("error", (error: Error) => {
            void service.stop();
            reject(error);
          });
          service.subscribe(plugin, slot).then(() => resolve(), reject);
        }),
      confirm: async (lsn) => {
        await service.acknowledge(lsn);
      },
      stop: async () => {
        stopped = true;
        if (!streaming) return;
        // Its socket is unref'd: a close awaited on it alone would let the process end first.
        clientSocket(socketHolder())?.ref?.();
        await service.stop();
      },
    };
  };
}

/**
 * pgoutput decoded with each value left as its type's text: the plugin parses values with pg's
 * global type parsers, which the app may have changed, and the images must be the trigger
 * feed's text. A relation's rows are parsed with the columns of its relation message, as soon
 * as each message arrives, so the parsers are replaced as the relation message is parsed.
 */
class TextPgoutput extends PgoutputPlugin {
  /** How many messages were decoded. */
  decoded = 0;

  override parse(buffer: Buffer): Pgoutput.Message {
    this.decoded += 1;
    const message = super.parse(buffer);
    if (message.tag === "relation")
      for (const column of message.columns) column.parser = (text: string) => text;
    return message;
  }
}
