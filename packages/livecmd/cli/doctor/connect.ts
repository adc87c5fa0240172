import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { InputError } from "../inputError.ts";
import { livecmdManifest } from "../livecmdPackage.ts";
import type { Era } from "./eras.ts";
import { errorText } from "./errorText.ts";
import { describeTarget, type Target } from "./target.ts";

/** A connected SDK client on one era. */
export interface Session {
  era: Era;
  client: Client;
  close(): Promise<void>;
}

export type ConnectAttempt = { served: true; session: Session } | { served: false; reason: string };

/** How much of a server's stderr is kept, to say why it stopped. */
const STDERR_KEPT = 4096;

/**
 * Opens the target on one era. A stdio target is started afresh for each era (on 2026-07-28 the
 * SDK first probes `server/discover` on a sibling process of its own). A target that cannot be
 * started or reached at all is bad input, not a finding about a server.
 */
export async function connect(
  target: Target,
  era: Era,
  timeoutMs: number,
): Promise<ConnectAttempt> {
  const client = new Client(
    { name: "livecmd-doctor", version: livecmdManifest().version },
    era.clientOptions,
  );
  const { transport, stderr } = openTransport(target);
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await transport.close();
    const unreachable = systemError(error);
    if (unreachable) throw new InputError(unreachableMessage(target, unreachable));
    return { served: false, reason: failureReason(error, timeoutMs, stderr()) };
  }
  // On 2026-07-28 the SDK answered `server/discover` from its sibling process and starts this
  // one only now: asking it again waits for it to be up, so the steps time the server, not its
  // start (a TypeScript app compiled on the fly takes seconds).
  if (target.kind === "stdio" && era.handshake === "server/discover")
    await client.discover({ timeout: timeoutMs }).catch(() => undefined);
  return { served: true, session: { era, client, close: () => client.close() } };
}

function openTransport(target: Target): { transport: Transport; stderr: () => string } {
  if (target.kind === "http")
    return {
      transport: new StreamableHTTPClientTransport(target.url, {
        requestInit: { headers: target.headers },
      }),
      stderr: () => "",
    };
  // The server gets the user's whole environment, as when they run the command themselves
  // (the SDK passes only HOME, PATH and a few more by default).
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    env: Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stderr: "pipe",
  });
  let kept = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    kept = (kept + chunk.toString("utf8")).slice(-STDERR_KEPT);
  });
  return { transport, stderr: () => kept };
}

/** The operating system's refusal to start the command or to connect, anywhere in the causes. */
function systemError(error: unknown): (Error & { code?: string; syscall: string }) | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { syscall } = cause as { syscall?: unknown };
    if (typeof syscall === "string" && /^(spawn|connect|getaddrinfo)/.test(syscall))
      return cause as Error & { syscall: string };
  }
  return undefined;
}

function unreachableMessage(target: Target, error: Error & { code?: string }): string {
  if (target.kind === "stdio") {
    const hint = error.code === "ENOENT" ? " (no such command; is it on PATH?)" : "";
    return `cannot start \`${describeTarget(target)}\`: ${error.message}${hint}`;
  }
  return `cannot reach ${target.url.href}: ${error.message} (is the server running?)`;
}

function failureReason(error: unknown, timeoutMs: number, stderr: string): string {
  const reason = errorText(error, timeoutMs);
  const telling = tellingLine(stderr);
  return telling ? `${reason}; the server's stderr says: ${telling}` : reason;
}

/**
 * The line of a server's stderr most likely to say why it stopped: the last one naming an
 * error that is not a stack frame (Node ends a crash with its version, Python with the
 * exception), else the last line.
 */
function tellingLine(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const errorLines = lines.filter((line) => /error/i.test(line) && !/^at\s/.test(line));
  return errorLines.at(-1) ?? lines.at(-1);
}
