import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/server";
import { errorAnswerText } from "../errors/protocolErrors.ts";
import { payloadTooLarge } from "../errors/frontDoorErrors.ts";

/**
 * How much of a refused body is read and dropped before the socket is cut. A socket closed with
 * unread bytes in its receive buffer sends a reset, and a reset that reaches a client still
 * sending makes it throw away the 413 it had been sent; reading the rest first lets the
 * connection close cleanly. Beyond this much (and Node's request timeout) the client is cut
 * off.
 */
export const MAX_DRAINED_BODY = 4 * DEFAULT_MAX_REQUEST_BODY_SIZE;

/**
 * Answers a request whose declared `Content-Length` is over the SDK's body limit, if it is one:
 * the SDK's 413 at once, in full, then the body read and dropped (up to `MAX_DRAINED_BODY`)
 * before the response ends and the connection closes. True when it answered.
 */
export function refusedOversized(request: IncomingMessage, response: ServerResponse): boolean {
  const declared = Number(request.headers["content-length"]);
  if (!(declared > DEFAULT_MAX_REQUEST_BODY_SIZE)) return false;
  const text = errorAnswerText(payloadTooLarge());
  response.writeHead(413, {
    connection: "close",
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  // Written whole now (the client may read while it sends); ended once the body is read.
  response.write(text);
  // A body parser in front (Express's, Fastify's) may have read it already.
  if (request.readableEnded) {
    response.end();
    return true;
  }
  let drained = 0;
  request.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BODY) request.socket.destroy();
  });
  request.on("end", () => response.end());
  return true;
}
