/**
 * What a team writes by hand with the SDK v2 alone to serve `sdkCustomers.ts`'s server over HTTP
 * on Node: `createMcpHandler` + `toNodeHandler`, behind the same Host/Origin checks livecmd makes.
 * `sdkServer.ts` serves it on `node:http`, `sdkExpressServer.ts` mounted in Express.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { buildServer } from "./sdkCustomers.ts";

export function sdkNodeHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  const onerror = (error: Error) => process.stderr.write(`sdk peer: ${error.message}\n`);
  const handler = createMcpHandler(() => buildServer(), { onerror });
  const nodeHandler = toNodeHandler(
    { fetch: (request: Request) => handler.fetch(request) },
    { onerror },
  );
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  return (req, res) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    void nodeHandler(req, res);
  };
}
