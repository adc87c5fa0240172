/** The part of a socket a process is kept alive by, or not. */
export interface HoldingSocket {
  ref?(): void;
  unref?(): void;
}

/**
 * The socket of a node-postgres client. A connection livecmd keeps open on its own (the change
 * feed's LISTEN, the relay's lock and its stream) is unref'd: it must not keep alive a process
 * that has nothing else to do (a script that used the app, a test file); what serves keeps it.
 */
export function clientSocket(client: unknown): HoldingSocket | undefined {
  return (client as { connection?: { stream?: HoldingSocket } } | undefined)?.connection?.stream;
}
