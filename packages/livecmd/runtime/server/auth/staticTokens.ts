import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { HttpAuth } from "./httpAuth.ts";
import { parseTokenLine } from "./tokenLine.ts";

/** How long a static token's `AuthInfo` says it is valid: until the file changes, in effect. */
const STATIC_TOKEN_LIFETIME_S = 3600;

interface StaticToken {
  clientId: string;
  scopes: string[];
}

/** Static tokens read from a file, re-read by `reload()` (the CLI calls it on SIGHUP). */
export interface StaticTokens extends HttpAuth {
  /** Reads the file again; on an error the tokens read before stay, and the error is thrown. */
  reload(): void;
  /** How many tokens are in force. */
  readonly size: number;
}

/**
 * Bearer tokens listed in `file`, one a line: `token [scope ...] [# client name]` (blank lines
 * and lines that start with `#` are skipped; `parseTokenLine` says what a line may hold, and
 * a line that does not parse refuses the whole file, naming its line number). The principal's client id is the name, or a short
 * digest of the token when there is none; tokens are looked up by their SHA-256 digest, never
 * compared as text. Every token here is issued for this server, whatever URL it answers at.
 */
export function staticTokens(
  file: string,
  options: Pick<HttpAuth, "requiredScopes"> = {},
): StaticTokens {
  let tokens = readTokens(file);
  const revocationListeners = new Set<() => void>();
  return {
    ...(options.requiredScopes && { requiredScopes: options.requiredScopes }),
    verify(token, resource) {
      const found = tokens.get(digest(token));
      if (!found) return undefined;
      const info: AuthInfo = {
        token,
        clientId: found.clientId,
        scopes: found.scopes,
        expiresAt: Math.floor(Date.now() / 1000) + STATIC_TOKEN_LIFETIME_S,
        resource,
      };
      return info;
    },
    reload() {
      tokens = readTokens(file);
      for (const listener of revocationListeners) listener();
    },
    onRevocation(listener) {
      revocationListeners.add(listener);
      return () => void revocationListeners.delete(listener);
    },
    get size() {
      return tokens.size;
    },
  };
}

function readTokens(file: string): Map<string, StaticToken> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`livecmd: cannot read the tokens file ${file}: ${(error as Error).message}`);
  }
  const tokens = new Map<string, StaticToken>();
  text.split("\n").forEach((raw, index) => {
    const parsed = parseTokenLine(raw);
    if (parsed === undefined) return;
    if ("problem" in parsed) throw new Error(`livecmd: ${file}:${index + 1}: ${parsed.problem}`);
    const key = digest(parsed.token);
    if (tokens.has(key))
      throw new Error(
        `livecmd: ${file}:${index + 1}: this token is listed twice; keep one line per token`,
      );
    tokens.set(key, { clientId: parsed.name || `token-${key.slice(0, 8)}`, scopes: parsed.scopes });
  });
  if (tokens.size === 0)
    throw new Error(
      `livecmd: ${file} lists no tokens; write one a line: <token> [scope ...] [# client name]`,
    );
  return tokens;
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
