import { betterSqlite3 } from "../better-sqlite3/betterSqlite3.ts";
import type { DatabaseDriver } from "../driver.ts";
import { DeferredDatabase } from "./deferredDatabase.ts";

const ADAPTER = "@prisma/adapter-better-sqlite3";

/** A Prisma driver adapter factory (`new PrismaBetterSqlite3({ url })`), as livecmd recognises one. */
export interface PrismaAdapterFactory {
  readonly provider: string;
  readonly adapterName: string;
  connect(): Promise<unknown>;
}

/** What livecmd uses of the adapter `@prisma/adapter-better-sqlite3` connects. */
interface ConnectedAdapter {
  /** Its better-sqlite3 connection (a public field of the adapter's). */
  readonly client: unknown;
  dispose(): Promise<void>;
}

/** The factories whose connection is shared, and the one connection each makes. */
const connections = new WeakMap<object, () => Promise<ConnectedAdapter>>();

/**
 * Makes Prisma's adapter `factory` connect once, whoever asks first (Prisma or livecmd), and give
 * that connection to everyone after: pass it to `new PrismaClient({ adapter })` and to
 * `defineApp({ database })` alike. The connection is then livecmd's to close (`app.close()`):
 * Prisma's `$disconnect` leaves it open for the next query. Needed where the adapter connects by
 * itself (`@prisma/adapter-better-sqlite3` opens its own better-sqlite3 connection from a URL);
 * on PostgreSQL give `PrismaPg` a pool and livecmd `postgres(pool)` instead.
 */
export function prisma<Factory extends PrismaAdapterFactory>(factory: Factory): Factory {
  if (connections.has(factory)) return factory;
  const connect = factory.connect.bind(factory) as () => Promise<ConnectedAdapter>;
  let connected: Promise<ConnectedAdapter> | undefined;
  const shared = () =>
    (connected ??= connect().then((adapter) => {
      adapter.dispose = async () => {};
      return adapter;
    }));
  connections.set(factory, shared);
  (factory as { connect: () => Promise<unknown> }).connect = shared;
  return factory;
}

/**
 * Prisma 7 on SQLite, through `@prisma/adapter-better-sqlite3`: `defineApp({ database: adapter })`
 * with the adapter given to `new PrismaClient({ adapter })`, made with `prisma(...)` so that both
 * share its one connection. Every statement Prisma runs through it is observed as
 * better-sqlite3's are.
 */
export const prismaBetterSqlite3: DatabaseDriver = {
  name: ADAPTER,
  accepts: (handle) =>
    typeof handle === "object" &&
    handle !== null &&
    (handle as Partial<PrismaAdapterFactory>).adapterName === ADAPTER &&
    typeof (handle as Partial<PrismaAdapterFactory>).connect === "function",
  open(handle, owner) {
    const connect = connections.get(prisma(handle as PrismaAdapterFactory))!;
    return new DeferredDatabase(
      connect().then((adapter) => betterSqlite3.open(adapter.client, owner)),
    );
  },
};
