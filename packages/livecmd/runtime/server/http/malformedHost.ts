import type { IncomingMessage, ServerResponse } from "node:http";
import { errorAnswerText } from "../errors/protocolErrors.ts";
import { hostMalformed } from "../errors/frontDoorErrors.ts";

/**
 * Answers 400 a request whose `Host` is no `host[:port]` (user info, spaces, an unclosed
 * bracket), if it is one: the request's URL is built from it, and a URL that cannot be built, or
 * carries credentials, would otherwise fail as a server fault. True when it answered.
 */
export function refusedMalformedHost(request: IncomingMessage, response: ServerResponse): boolean {
  const host = request.headers.host;
  if (host === undefined || isHostAndPort(host)) return false;
  const text = errorAnswerText(hostMalformed(host));
  response.writeHead(400, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
  return true;
}

function isHostAndPort(host: string): boolean {
  return !/[\s@/?#\\]/.test(host) && URL.canParse(`http://${host}/`);
}
