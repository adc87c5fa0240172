import type { PgConnectionOptions } from "./pgLibrary.ts";

/** DATABASE_URL's shape, checked before anything connects; undefined when it is a postgres:// URL. */
export function urlProblem(url: string): string | undefined {
  if (/^postgres(ql)?:\/\/\S*$/.test(url)) return undefined;
  return `livecmd: the PostgreSQL URL ${JSON.stringify(redacted(url))} must look like postgres://user:password@host:5432/database`;
}

/** The URL with its password hidden, for messages. */
export function redacted(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}

/**
 * Where a pg.Pool or pg.Client the app gave connects, as its options say (a pool given no host
 * or port connects where node-postgres's defaults point: PGHOST, else localhost).
 */
export function handleWhere(
  kind: "pg.Pool" | "pg.Client",
  options: PgConnectionOptions = {},
): string {
  const { connectionString, host, port, database } = options;
  if (connectionString) return `${redacted(connectionString)} (the ${kind} given)`;
  const address = `${host ?? process.env.PGHOST ?? "localhost"}:${port ?? process.env.PGPORT ?? 5432}`;
  return `${address}${database ? `/${database}` : ""} (the ${kind} given)`;
}

/**
 * What to fix: DATABASE_URL, or, where this process has none, the URL or pool given, saying that
 * the variable is missing (a host that starts the server passes only the variables its config names).
 */
function fixUrl(part: string): string {
  return process.env.DATABASE_URL === undefined
    ? `fix ${part}the URL or pool given (DATABASE_URL is not set in this process's environment, and a host that starts the server passes only the variables its config names)`
    : `fix ${part}DATABASE_URL`;
}

/**
 * A failed first connection, as one line that says what to do. Keyed by the error's code:
 * Node's for the network, PostgreSQL's SQLSTATE for what the server refused.
 */
export function connectionProblem(error: Error & { code?: string }, where: string): string {
  const at = `PostgreSQL at ${where}`;
  switch (error.code) {
    case "ECONNREFUSED":
    case "ENOENT":
      return `livecmd: cannot connect to ${at}: nothing listens there (${error.code}); start the server or ${fixUrl("")}`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `livecmd: cannot connect to ${at}: the host name does not resolve (${error.code}); ${fixUrl("the host in ")}`;
    case "ETIMEDOUT":
      return `livecmd: cannot connect to ${at}: the connection timed out; check the host, port and firewall`;
    case "28P01":
    case "28000":
      return `livecmd: ${at} refused the login: ${error.message}; ${fixUrl("the user or password in ")}`;
    case "3D000":
      return `livecmd: ${at}: ${error.message}; create it (createdb) or ${fixUrl("the database name in ")}`;
    default:
      return `livecmd: cannot use ${at}: ${error.message}`;
  }
}
