import { hostname, networkInterfaces } from "node:os";

/**
 * The names a client on the network may reach this machine by, as a `Host` header carries
 * them: its host name and every address of its interfaces (IPv6 in brackets). What a server
 * listening on every interface (0.0.0.0, ::) answers to.
 */
export function ownHostNames(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((each) => each !== undefined)
    .map((each) => (each.family === "IPv6" ? `[${each.address}]` : each.address));
  return [hostname(), ...addresses];
}

/** Whether `host` is the address of every interface, for IPv4 or IPv6. */
export function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/**
 * Whether `host` (a name or an address, as a server listens on it or a socket names its peer)
 * is this machine's loopback: `localhost`, 127.0.0.0/8, `::1`, or 127.0.0.0/8 mapped into IPv6
 * (how a server listening on `::` sees an IPv4 loopback client).
 */
export function isLoopback(host: string): boolean {
  return (
    host === "localhost" ||
    host === "::1" ||
    host === "[::1]" ||
    /^(::ffff:)?127\.\d+\.\d+\.\d+$/i.test(host)
  );
}
