import { AsyncResource } from "node:async_hooks";
import type {
  PgClient,
  PgHandleStatements,
  PgPool,
  PgQueryConfig,
  PgQueryResult,
  TransactionStatus,
} from "../postgres/pgLibrary.ts";

const STATUS: Readonly<Record<string, TransactionStatus>> = {
  I: "idle",
  T: "in transaction",
  E: "failed transaction",
};

type Method = (...args: unknown[]) => unknown;
type Callback = (error: Error | null, result?: unknown) => void;

/** The parts of node-postgres's own classes livecmd reads: a Pool's counters, a Client's connection. */
interface PgInternals {
  totalCount?: unknown;
  connectionParameters?: unknown;
  connection?: {
    on(event: "readyForQuery", listener: (message: { status: string }) => void): unknown;
  };
}

/** Whether `handle` is a node-postgres `Pool` (else, for `postgres()`, a `Client`). */
export function isPool(handle: unknown): handle is PgPool {
  return typeof handle === "object" && handle !== null && "totalCount" in handle;
}

/** Whether `handle` is a node-postgres `Client`. */
export function isClient(handle: unknown): handle is PgClient {
  return (
    typeof handle === "object" &&
    handle !== null &&
    typeof (handle as PgInternals).connectionParameters === "object"
  );
}

/** The settings `client` connected with, for a pool of livecmd's own beside it (its password included). */
export function connectionConfigOf(client: PgClient): Record<string, unknown> {
  const { user, password, host, port, database, ssl } = (
    client as unknown as { connectionParameters: Record<string, unknown> }
  ).connectionParameters;
  return { user, password, host, port, database, ssl };
}

/**
 * Makes every statement the app sends through `pool` go through `statements`: its `connect` is
 * given a method of its own in front of pg-pool's, which hands out each client behind a proxy
 * whose `query` is observed (`pool.query` connects through it too). The app keeps the pool it
 * made, and every library holding it (Drizzle, Kysely, Prisma's adapter) sees the same. Returns
 * the pool as livecmd uses it itself, unobserved.
 *
 * A `connect` callback runs in the async context of the caller that asked for the client: pg-pool
 * keeps waiting callbacks in a queue of its own and calls each from whichever caller released a
 * client (or from the socket's events), so unbound, `pool.query`'s statement would be told to the
 * run that freed the connection, not to the run that made it.
 */
export function observePool(pool: PgPool, statements: PgHandleStatements): PgPool {
  const connect = (pool.connect as Method).bind(pool);
  const proxies = new WeakMap<PgClient, PgClient>();
  const proxyOf = (client: PgClient) => {
    let proxy = proxies.get(client);
    if (!proxy) proxies.set(client, (proxy = observedClient(client, statements)));
    return proxy;
  };
  (pool as unknown as Record<string, unknown>).connect = (callback?: unknown) => {
    if (typeof callback !== "function") return (connect() as Promise<PgClient>).then(proxyOf);
    // A resource of its own, not AsyncResource.bind: on Node 20 that builds a deprecation wrapper per call.
    const caller = new AsyncResource("livecmd:pool.connect");
    return connect((error: Error | undefined, client: PgClient | undefined, done: unknown) =>
      caller.runInAsyncScope(callback as Method, undefined, error, client && proxyOf(client), done),
    );
  };
  return unobservedPool(pool, connect as () => Promise<PgClient>);
}

/**
 * Makes every statement the app sends through its own connected `client` go through
 * `statements` (its `query` given a method of its own in front of pg's).
 */
export function observeClient(client: PgClient, statements: PgHandleStatements): void {
  const query = observedQuery(client, statements);
  (client as unknown as Record<string, unknown>).query = query;
}

/** `client` as the app sees it: the same, but for an observed `query`. */
function observedClient(client: PgClient, statements: PgHandleStatements): PgClient {
  const query = observedQuery(client, statements);
  // Bound once per method: pg-pool and the libraries ask for `release` and the like on every use.
  const bound = new Map<PropertyKey, { method: Method; bound: Method }>();
  return new Proxy(client, {
    get(target, key) {
      if (key === "query") return query;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      let known = bound.get(key);
      if (known?.method !== value)
        bound.set(
          key,
          (known = { method: value as Method, bound: (value as Method).bind(target) }),
        );
      return known.bound;
    },
  });
}

/**
 * pg's `query`, in each of its forms (`(text, values?)`, `(config, values?)`, either with a
 * callback, or a submittable), observed. One whose run is told at once goes to pg as the app sent
 * it; the others leave in the order they were made (`inOrder`).
 */
function observedQuery(client: PgClient, statements: PgHandleStatements): Method {
  const query = (client.query as Method).bind(client);
  const status = transactionStatus(client);
  const unobserved = unobservedClient(client, query);
  const sending = inOrder();
  return (...args: unknown[]) => {
    const { text, values, callback, sendArgs, streamed } = queryArguments(args);
    if (streamed) {
      statements.streamed(text, values);
      return query(...args);
    }
    if (
      sending.idle() &&
      statements.toldAtOnce({ text, values, client: unobserved, status: status() })
    )
      return query(...args);
    // Where the connection stands once the statements before it have left, not now.
    const result = sending.send((handOff) =>
      statements.statement({ text, values, client: unobserved, status: status() }, () => {
        const leaving = query(...sendArgs) as Promise<PgQueryResult>;
        handOff();
        return leaving;
      }),
    );
    if (!callback) return result;
    result.then(
      (rows) => callback(null, rows),
      (error: Error) => callback(error),
    );
    return undefined;
  };
}

/** pg's `query` arguments, read: its text and values, and a callback (sent without it). */
function queryArguments(args: unknown[]) {
  const [first, second] = args;
  const config = (typeof first === "string" ? { text: first } : first) as Partial<PgQueryConfig> & {
    submit?: unknown;
  };
  const callback = args.find((arg) => typeof arg === "function") as Callback | undefined;
  return {
    text: String(config.text),
    values: Array.isArray(second) ? second : (config.values ?? []),
    callback,
    sendArgs: callback ? args.filter((arg) => arg !== callback) : args,
    streamed: typeof config.submit === "function",
  };
}

/** `client` as livecmd sends on it itself: pg's own `query`, past the observation. */
function unobservedClient(client: PgClient, query: Method): PgClient {
  return {
    query: (config) => query(config) as Promise<PgQueryResult>,
    get processID() {
      return client.processID;
    },
    release: (destroy) => client.release(destroy),
    on: (event: string, listener: (value: never) => void) =>
      (client.on as (event: string, listener: (value: never) => void) => unknown)(event, listener),
  };
}

/**
 * The statements of one connection, sent in the order they were made: one that waits to be
 * explained holds back those made after it; with none waiting, the next goes at once.
 */
function inOrder() {
  let previous: Promise<void> = Promise.resolve();
  let unsent = 0;
  return {
    idle: () => unsent === 0,
    /** `observe` sends its statement, and calls `handOff` once it has left. */
    send<T>(observe: (handOff: () => void) => Promise<T>): Promise<T> {
      let handedOff!: () => void;
      const turn = previous;
      previous = new Promise<void>((resolve) => (handedOff = resolve));
      unsent += 1;
      let left = false;
      const handOff = () => {
        if (left) return;
        left = true;
        unsent -= 1;
        handedOff();
      };
      const result = unsent === 1 ? observe(handOff) : turn.then(() => observe(handOff));
      // A statement that never left (cancelled, or its explain failed) holds back nothing.
      void result.finally(handOff).catch(() => {});
      return result;
    },
  };
}

/** Where `client` stands after its last statement, as PostgreSQL told it; idle when first seen. */
function transactionStatus(client: PgClient): () => TransactionStatus | undefined {
  const connection = (client as unknown as PgInternals).connection;
  if (typeof connection?.on !== "function") return () => undefined;
  let status: TransactionStatus = "idle";
  connection.on("readyForQuery", (message) => (status = STATUS[message.status] ?? status));
  return () => status;
}

/** The pool as livecmd's own statements use it: its clients as they are, `query` through them. */
function unobservedPool(pool: PgPool, connect: () => Promise<PgClient>): PgPool {
  return {
    connect,
    async query(config) {
      const client = await connect();
      try {
        const result = await client.query(config);
        client.release();
        return result;
      } catch (error) {
        // As pg-pool does: a client whose statement failed is not trusted again.
        client.release(error as Error);
        throw error;
      }
    },
    end: () => pool.end(),
    ...(pool.on && { on: (event, listener) => pool.on!(event, listener) }),
  };
}
