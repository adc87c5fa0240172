import { InputError } from "../inputError.ts";

/** The server to examine: a Streamable HTTP endpoint, or a command that serves stdio. */
export type Target =
  | { kind: "http"; url: URL; headers: Readonly<Record<string, string>> }
  | { kind: "stdio"; command: string; args: string[] };

/**
 * The target from `livecmd doctor <url>` or `livecmd doctor -- <command> [args...]`; an HTTP
 * target's requests carry `headers` (`credentials.ts`).
 */
export function parseTarget(
  url: string | undefined,
  command: readonly string[],
  headers: Readonly<Record<string, string>> = {},
): Target {
  if (url !== undefined && command.length > 0) {
    throw new InputError(
      `give either a URL or a command after --, not both (got ${url} and -- ${command.join(" ")})`,
    );
  }
  if (command.length > 0) {
    if (Object.keys(headers).length > 0)
      throw new InputError(
        "--header and --token-file are for a server's URL; a stdio server reads its credentials from its environment",
      );
    return { kind: "stdio", command: command[0]!, args: command.slice(1) };
  }
  if (url === undefined) {
    throw new InputError(
      "name the server: livecmd doctor http://127.0.0.1:3000/mcp, or livecmd doctor -- <command that serves stdio>",
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(
      `${url} is not a URL; give the server's Streamable HTTP endpoint, like http://127.0.0.1:3000/mcp`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InputError(
      `${url} is not an http(s) URL; for a server on stdio, give its command after --: livecmd doctor -- node server.js`,
    );
  }
  return { kind: "http", url: parsed, headers };
}

/** The target as the user typed it. */
export function describeTarget(target: Target): string {
  return target.kind === "http" ? target.url.href : [target.command, ...target.args].join(" ");
}
