import type { McpServerFactory } from "@modelcontextprotocol/server";
import type { App } from "../../model/app.ts";
import { buildServer } from "./buildServer.ts";
import { ServedApp, type ServeOptions } from "../served/servedApp.ts";

/**
 * A factory of SDK server instances for the app, for the SDK's serving entries
 * (`createMcpHandler`, `serveStdio`) and hand-wired compositions. The instances answer requests
 * but push nothing; `serveStdio` and `serveHttp` below also deliver `list_changed`.
 */
export function createServerFactory(app: App, options: ServeOptions = {}): McpServerFactory {
  const served = new ServedApp(app, options);
  return () => buildServer(served);
}
