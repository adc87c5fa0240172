import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler, type NodeIncomingMessageLike } from "@modelcontextprotocol/node";
import { refusedOversized } from "./oversizedBody.ts";
import { refusedMalformedHost } from "./malformedHost.ts";
import { parsedBodyText } from "./parsedBody.ts";
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

/**
 * `serve` (the endpoint's web-standard handler) as a `NodeHandler`, through the SDK's
 * `toNodeHandler` (the SSE writes with backpressure, the request's signal aborted when the
 * client goes away). A declared body over the limit is answered 413 before anything reads it
 * (`refusedOversized`), a `Host` no URL can be built from 400 (`refusedMalformedHost`); each request runs as a new request (`asNewRequest`) from the socket's
 * peer; Express's mount path is kept (`originalUrl`).
 *
 * `toNodeHandler` reads the whole body before it calls `serve`, so a request is counted in
 * (`arrived`, which returns what counts it out) from when it is handed over until `serve` has
 * it: a shutdown that waits for the requests in progress waits for one whose body is still
 * coming. Handed over is its headers, unless a body parser mounted before the endpoint read the
 * body first (which is why `docs/mcp.md` mounts it before the app's parser).
 */
export function nodeFace(
  serve: (request: Request) => Promise<Response>,
  onerror: (error: Error) => void,
  arrived: () => () => void,
): NodeHandler {
  return async (request, response, body) => {
    if (refusedOversized(request, response) || refusedMalformedHost(request, response)) return;
    const reading = arrived();
    const handle = toNodeHandler({ fetch: (web) => handedOn(serve(web), reading) }, { onerror });
    const { remoteAddress: address, remotePort: port } = request.socket;
    try {
      await asNewRequest(() => handle(incoming(request, readBefore(request, body)), response), {
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
 * The body read before the endpoint, as text or bytes: `body` when given (Fastify's
 * `request.body`), else Express's `req.body` once a body parser has read the stream. Text or
 * bytes (`express.text()`, `express.raw()`) are the body they are; a parsed JSON value
 * (`express.json()`) is written back to its text (`parsedBodyText`), which the endpoint reads
 * as it reads any body. Undefined when the stream is the endpoint's to read.
 */
function readBefore(request: IncomingMessage, body: unknown): string | Buffer | undefined {
  // Express passes `next` third.
  const given = typeof body === "function" ? undefined : body;
  const read = given ?? (request.readableEnded ? (request as { body?: unknown }).body : undefined);
  if (read === undefined) return undefined;
  return typeof read === "string" || Buffer.isBuffer(read) ? read : parsedBodyText(read);
}

/**
 * The request as `toNodeHandler` reads it: at its URL before any mount path was cut off, with
 * the body read before it, whose length is its own (a parser decoded its encoding and charset).
 */
function incoming(
  request: IncomingMessage & { originalUrl?: string },
  read: string | Buffer | undefined,
): NodeIncomingMessageLike {
  const url = request.originalUrl ?? request.url;
  if (url === request.url && read === undefined) return request;
  return {
    method: request.method,
    url,
    headers: read === undefined ? request.headers : headersOf(request.headers, read),
    [Symbol.asyncIterator]:
      read === undefined
        ? () => request[Symbol.asyncIterator]()
        : async function* () {
            yield read;
          },
  };
}

/** `headers` of a body that is now `read`: its length, and no encoding left to undo. */
function headersOf(headers: IncomingHttpHeaders, read: string | Buffer): IncomingHttpHeaders {
  const { "content-encoding": _encoding, "transfer-encoding": _transfer, ...kept } = headers;
  return { ...kept, "content-length": String(Buffer.byteLength(read)) };
}
