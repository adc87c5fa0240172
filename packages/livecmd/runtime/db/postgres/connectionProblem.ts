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
 * A failed first connection, as one line that says what to do. Keyed by the error's code:
 * Node's for the network, PostgreSQL's SQLSTATE for what the server refused.
 */
export function connectionProblem(error: Error & { code?: string }, where: string): string {
  const at = `PostgreSQL at ${where}`;
  switch (error.code) {
    case "ECONNREFUSED":
    case "ENOENT":
      return `livecmd: cannot connect to ${at}: nothing listens there (${error.code}); start the server or fix DATABASE_URL`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `livecmd: cannot connect to ${at}: the host name does not resolve (${error.code}); fix the host in DATABASE_URL`;
    case "ETIMEDOUT":
      return `livecmd: cannot connect to ${at}: the connection timed out; check the host, port and firewall`;
    case "28P01":
    case "28000":
      return `livecmd: ${at} refused the login: ${error.message}; fix the user or password in DATABASE_URL`;
    case "3D000":
      return `livecmd: ${at}: ${error.message}; create it (createdb) or fix the database name in DATABASE_URL`;
    default:
      return `livecmd: cannot use ${at}: ${error.message}`;
  }
}
