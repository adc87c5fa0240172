import { createHash } from "node:crypto";
import type { PgQueryable } from "../pgLibrary.ts";
import { BusSubjects } from "./busSubjects.ts";
import { loadNats } from "./loadNats.ts";
import type {
  JetStreamClient,
  JetStreamManager,
  NatsConnection,
  NatsLibrary,
  StreamInfo,
} from "./natsLibrary.ts";

/**
 * How long the stream keeps a change: a process cut off from the bus for longer re-runs every
 * watch when it is back, rather than replaying what it missed.
 */
const KEPT_NS = 60 * 60 * 1e9;

/** The database's name and cluster, which every process serving it shares, and no other database. */
const DATABASE_IDENTITY = /* sql */ `
SELECT system_identifier::text || '/' || current_database() AS identity FROM pg_control_system()`;

/**
 * One process's connection to the bus: a NATS connection (reconnecting without end), JetStream on
 * it, and the subjects of the database it serves. The relay and the listener of a process share it.
 */
export interface BusConnection {
  readonly nats: NatsConnection;
  readonly jetstream: JetStreamClient;
  readonly streams: JetStreamManager;
  readonly subjects: BusSubjects;
  readonly library: NatsLibrary;
  /** Where it connects, as messages name it (no credentials). */
  readonly where: string;
}

export async function connectBus(url: string, database: PgQueryable): Promise<BusConnection> {
  const library = await loadNats();
  const where = redacted(url);
  const { rows } = await database.query({ text: DATABASE_IDENTITY });
  const identity = (rows[0] as { identity: string }).identity;
  const subjects = new BusSubjects(createHash("sha1").update(identity).digest("hex").slice(0, 12));
  const nats = await library.core
    .connect({ servers: url, maxReconnectAttempts: -1, name: `livecmd ${process.pid}` })
    .catch((error: Error) => {
      throw new Error(
        `livecmd: could not connect to the bus at ${where} (${error.message}); start nats-server with JetStream (nats-server -js) there, or fix postgres({ bus }) / LIVECMD_BUS`,
        { cause: error },
      );
    });
  // The manager asks the server for its JetStream account first: the check that it has one.
  const streams = await library.jetstream.jetstreamManager(nats).catch(async (error: Error) => {
    await nats.close();
    throw jetStreamProblem(where, error);
  });
  return { nats, jetstream: library.jetstream.jetstream(nats), streams, subjects, library, where };
}

/**
 * The database's stream, made when missing (by whichever process comes first; the same
 * settings from any). Its creation time tells one stream from another of the same name: a
 * stream deleted and made again starts its positions over.
 */
export async function ensuredStream(bus: BusConnection): Promise<StreamInfo> {
  const { stream, log } = bus.subjects;
  try {
    return await bus.streams.streams.info(stream);
  } catch (error) {
    const { JetStreamApiError, JetStreamApiCodes } = bus.library.jetstream;
    const missing =
      error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
    if (!missing) throw jetStreamProblem(bus.where, error as Error);
  }
  return await bus.streams.streams
    .add({
      name: stream,
      subjects: [log],
      storage: bus.library.jetstream.StorageType.File,
      max_age: KEPT_NS,
    })
    .catch((error: Error) => {
      throw jetStreamProblem(bus.where, error);
    });
}

function jetStreamProblem(where: string, error: Error): Error {
  // The class the client throws it as is not among its exports: its name tells it.
  const message =
    error.name === "JetStreamNotEnabled"
      ? `livecmd: the bus at ${where} has no JetStream (${error.message}); livecmd keeps the changes in a JetStream stream: start nats-server with JetStream on (nats-server -js, or jetstream {} in its configuration)`
      : `livecmd: the bus at ${where} did not answer a JetStream request (${error.message}); is nats-server up, with JetStream on (nats-server -js)?`;
  return new Error(message, { cause: error });
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}
