import type { Transport } from "@modelcontextprotocol/server";
import { serveStdio as serveStdioEntry, type StdioServerHandle } from "@modelcontextprotocol/server/stdio";
import type { App } from "../app.ts";
import { buildServer } from "./buildServer.ts";
import { Connection } from "./connection.ts";
import { ServedApp, type ServeOptions } from "./servedApp.ts";

export interface ServeStdioOptions extends ServeOptions {
  /** Another transport than the process's stdin/stdout (a socket, or an in-memory pair in tests). */
  transport?: Transport;
  /** Out-of-band errors; defaults to a line on stderr, since stdout carries the protocol. */
  onerror?: (error: Error) => void;
}

/**
 * Serves the app over stdio, on both eras: the SDK's entry picks the era from the opening
 * message and pins one instance to the connection.
 */
export function serveStdio(app: App, options: ServeStdioOptions = {}): StdioServerHandle {
  const served = new ServedApp(app, options);
  const onerror = options.onerror ?? ((error: Error) => process.stderr.write(`livecmd: ${error.message}\n`));
  return serveStdioEntry(
    () => {
      const server = buildServer(served);
      new Connection(served, server, onerror);
      return server;
    },
    { ...(options.transport && { transport: options.transport }), onerror },
  );
}
