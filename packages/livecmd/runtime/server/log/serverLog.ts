import type * as PinoModule from "pino";
import type { DestinationStream, Logger } from "pino";
import { bundledRequire } from "../../bundledRequire.ts";
import { cutText } from "../../text/cutText.ts";
import { DEFAULT_LOG_FORMAT, type LogFormat } from "./logFormat.ts";
import { currentRequest } from "./requestContext.ts";
import { terminalSafe } from "../../text/terminalSafe.ts";

/** What a serving entry writes its log lines through (pino's logger). */
export type ServerLog = Logger;

/** The longest message a line carries: a URI or a body in it is cut, never repeated whole. */
export const MAX_LOG_MESSAGE = 300;

/** A principal's client id comes from a token's claims: a name, not a document. */
const MAX_LOG_PRINCIPAL = 100;

/**
 * The server's log, on stderr by default (stdout may carry the protocol). Each line has its
 * level and time, and, when written while an HTTP request is served, the request's id
 * (`req`) and the principal's client id (`principal`). Messages are cut to `MAX_LOG_MESSAGE`,
 * and no character a terminal acts on is written raw: a client's newline or NUL in a URI
 * comes out as `\u000a`, `\u0000`, in either format.
 */
export function serverLog(
  format: LogFormat = DEFAULT_LOG_FORMAT,
  destination: { write(line: string): unknown } = process.stderr,
): ServerLog {
  const { pino } = bundledRequire("pino", "pino") as typeof PinoModule;
  return pino(
    {
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const request = currentRequest();
        return request
          ? {
              req: request.id,
              ...(request.principal !== undefined && {
                principal: cutText(request.principal, MAX_LOG_PRINCIPAL),
              }),
            }
          : {};
      },
      hooks: {
        logMethod(args, method) {
          // Errors thrown for a terminal start with "livecmd: "; a line says it once, in front.
          const cut = args.map((arg) =>
            typeof arg === "string" ? cutText(arg.replace(/^livecmd: /, ""), MAX_LOG_MESSAGE) : arg,
          ) as typeof args;
          method.apply(this, cut);
        },
      },
    },
    format === "json" ? jsonLines(destination) : prettyLines(destination),
  );
}

/** pino's JSON lines, with what JSON leaves raw (DEL, C1, U+2028…) escaped as well. */
function jsonLines(destination: { write(line: string): unknown }): DestinationStream {
  return { write: (line) => void destination.write(terminalSafe(line.slice(0, -1)) + "\n") };
}

/** Each JSON line as `livecmd: message (request r7, principal reader)`, escaped. */
function prettyLines(destination: { write(line: string): unknown }): DestinationStream {
  return {
    write(line) {
      const { msg, req, principal } = JSON.parse(line) as {
        msg?: string;
        req?: string;
        principal?: string;
      };
      const about = [req && `request ${req}`, principal !== undefined && `principal ${principal}`]
        .filter(Boolean)
        .join(", ");
      const text = `livecmd: ${msg ?? ""}${about && ` (${about})`}`;
      destination.write(`${terminalSafe(text)}\n`);
    },
  };
}
