import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler, type NodeIncomingMessageLike } from "@modelcontextprotocol/node";
import { refusedOversized } from "./oversizedBody.ts";
import { asNewRequest } from "../log/requestContext.ts";

/**
 * The endpoint as a Node request handler: `node:http`'s `(req, res)`, Express's
 * `(req, res, next)` (`next` is never called: the endpoint answers every request it is given),
 * or Fastify's raw pair with the body it parsed, `(request.raw, reply.raw, request.body)`.
 */
export type NodeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  body?: unknown,
) => Promise<void>;

/** What a framework read of the body before the endpoint got the request. */
type ReadBefore = { parsed: unknown } | { raw: string | Buffer };

/**
 * `serve` (the endpoint's web-standard handler) as a `NodeHandler`, through the SDK's
 * `toNodeHandler` (the SSE writes with backpressure, the request's signal aborted when the
 * client goes away). A declared body over the limit is answered 413 before anything reads it
 * (`refusedOversized`); each request runs as a new request (`asNewRequest`) from the socket's
 * peer; Express's mount path is kept (`originalUrl`).
 *
 * `toNodeHandler` reads the whole body before it calls `serve`, so a request is counted in
 * (`arrived`, which returns what counts it out) from its headers until `serve` has it: a
 * shutdown that waits for the requests in progress waits for one whose body is still coming.
 */
export function nodeFace(
  serve: (request: Request) => Promise<Response>,
  onerror: (error: Error) => void,
  arrived: () => () => void,
): NodeHandler {
  return async (request, response, body) => {
    if (refusedOversized(request, response)) return;
    const reading = arrived();
    const handle = toNodeHandler({ fetch: (web) => handedOn(serve(web), reading) }, { onerror });
    const { remoteAddress: address, remotePort: port } = request.socket;
    const read = readBefore(request, body);
    const parsed = read && "parsed" in read ? read.parsed : undefined;
    try {
      await asNewRequest(() => handle(incoming(request, read), response, parsed), {
        ...(address !== undefined && { address }),
        ...(port !== undefined && { port }),
      });
    } finally {
      reading();
    }
  };
}

/** `answer`, once `serve` has counted its request in: only then is the reading counted out. */
function handedOn(answer: Promise<Response>, reading: () => void): Promise<Response> {
  reading();
  return answer;
}

/**
 * The body read before the endpoint: `body` when given (Fastify's `request.body`), else
 * Express's `req.body` once a body parser has read the stream. A parsed JSON value
 * (`express.json()`) is handed on parsed; text or bytes (`express.text()`, `express.raw()`) as
 * the body they are. Undefined when the stream is the endpoint's to read.
 */
function readBefore(request: IncomingMessage, body: unknown): ReadBefore | undefined {
  // Express passes `next` third.
  const given = typeof body === "function" ? undefined : body;
  const read = given ?? (request.readableEnded ? (request as { body?: unknown }).body : undefined);
  if (read === undefined) return undefined;
  return typeof read === "string" || Buffer.isBuffer(read) ? { raw: read } : { parsed: read };
}

/** The request as `toNodeHandler` reads it: at its URL before any mount path was cut off, with its body. */
function incoming(
  request: IncomingMessage & { originalUrl?: string },
  read: ReadBefore | undefined,
): NodeIncomingMessageLike {
  const url = request.originalUrl ?? request.url;
  const raw = read && "raw" in read ? read.raw : undefined;
  if (url === request.url && raw === undefined) return request;
  return {
    method: request.method,
    url,
    headers: request.headers,
    [Symbol.asyncIterator]:
      raw === undefined
        ? () => request[Symbol.asyncIterator]()
        : async function* () {
            yield raw;
          },
  };
}
