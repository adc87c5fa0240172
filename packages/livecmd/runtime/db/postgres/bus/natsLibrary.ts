/**
 * The shapes livecmd uses of the NATS client (`@nats-io/transport-node`, `@nats-io/jetstream`),
 * as `pgLibrary.ts` holds pg's: its own, so that livecmd's published types name no package an
 * app without a bus has not installed. `loadNats.ts` checks the real modules against them.
 */

export interface NatsMsg {
  json<T>(): T;
}

export interface NatsSubscription {
  unsubscribe(): void;
}

export interface NatsConnection {
  readonly info?: { readonly max_payload: number };
  subscribe(
    subject: string,
    options: { callback: (error: Error | null, msg: NatsMsg) => void },
  ): NatsSubscription;
  publish(subject: string, data: string): void;
  flush(): Promise<void>;
  status(): AsyncIterable<{ readonly type: string }>;
  isClosed(): boolean;
  close(): Promise<void>;
}

export interface StreamInfo {
  /** When the stream was made: a stream made again starts its positions over. */
  readonly created: string;
  readonly state: { readonly first_seq: number; readonly last_seq: number };
}

export interface JetStreamManager {
  readonly streams: {
    info(name: string): Promise<StreamInfo>;
    add(config: {
      name: string;
      subjects: string[];
      storage: StorageFile;
      max_age: number;
    }): Promise<StreamInfo>;
  };
}

/** A message replayed from the stream: its position and JSON. */
export interface StoredMsg extends NatsMsg {
  readonly seq: number;
}

export interface ReplayedMessages extends AsyncIterable<StoredMsg> {
  close(): Promise<void | Error>;
}

export interface JetStreamClient {
  publish(
    subject: string,
    data: string,
    options?: { msgID: string },
  ): Promise<{ readonly seq: number; readonly duplicate: boolean }>;
  readonly consumers: {
    get(
      stream: string,
      options: { opt_start_seq: number; deliver_policy: StartSequence },
    ): Promise<{ consume(): Promise<ReplayedMessages> }>;
  };
}

type StorageFile = "file";
type StartSequence = "by_start_sequence";

/** The NATS client's two packages, as livecmd uses them. */
export interface NatsLibrary {
  readonly core: {
    connect(options: {
      servers: string;
      maxReconnectAttempts: number;
      name: string;
    }): Promise<NatsConnection>;
  };
  readonly jetstream: {
    jetstream(nats: NatsConnection): JetStreamClient;
    jetstreamManager(nats: NatsConnection): Promise<JetStreamManager>;
    readonly StorageType: { readonly File: StorageFile };
    readonly DeliverPolicy: { readonly StartSequence: StartSequence };
    readonly JetStreamApiCodes: { readonly StreamNotFound: number };
    readonly JetStreamApiError: abstract new (
      ...args: never[]
    ) => Error & { readonly code: number };
  };
}
