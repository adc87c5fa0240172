import type { ServeHttpOptions, ServerLog, StaticTokens } from "livecmd/server";
import { InputError } from "./inputError.ts";

/** The `livecmd serve` flags that only Streamable HTTP reads. */
export interface HttpFlags {
  host?: string;
  tokens?: string;
  issuer?: string;
  audience?: string;
  "jwks-uri"?: string;
  "require-scope"?: string[];
  "public-url"?: string;
  "allowed-host"?: string[];
  "allowed-origin"?: string[];
  "session-idle"?: number;
  "max-subscriptions"?: number;
  "max-subscriptions-per-principal"?: number;
  "max-sessions"?: number;
  "max-sessions-per-principal"?: number;
}

export const HTTP_FLAG_NAMES = [
  "host",
  "tokens",
  "issuer",
  "audience",
  "jwks-uri",
  "require-scope",
  "public-url",
  "allowed-host",
  "allowed-origin",
  "session-idle",
  "max-subscriptions",
  "max-subscriptions-per-principal",
  "max-sessions",
  "max-sessions-per-principal",
] as const satisfies readonly (keyof HttpFlags)[];

/** The flags, checked together: the one-line problem with them, or undefined. */
export function httpFlagsProblem(flags: HttpFlags, http: boolean): string | undefined {
  const given = HTTP_FLAG_NAMES.filter((name) => flags[name] !== undefined);
  const empty = given.find(
    (name) =>
      flags[name] === "" ||
      (Array.isArray(flags[name]) && flags[name].some((value) => value === "")),
  );
  if (empty) return `--${empty} needs a value`;
  if (!http && given.length > 0) return `--${given[0]} is for Streamable HTTP; add --http PORT`;
  if (flags.tokens !== undefined && flags.issuer !== undefined)
    return "--tokens and --issuer are two ways to authenticate; pass one";
  if ((flags.issuer === undefined) !== (flags.audience === undefined))
    return "--issuer and --audience go together: the authorization server, and this server's URL its tokens name";
  if (flags["jwks-uri"] !== undefined && flags.issuer === undefined)
    return "--jwks-uri needs --issuer and --audience";
  if (flags["require-scope"] && flags.tokens === undefined && flags.issuer === undefined)
    return "--require-scope needs --tokens FILE or --issuer URL --audience AUD";
  for (const name of ["public-url", "issuer", "jwks-uri"] as const) {
    const value = flags[name];
    if (value !== undefined && !URL.canParse(value)) return `--${name} must be a URL, got ${value}`;
  }
  return undefined;
}

/**
 * What the flags ask of `serveHttp`. Static tokens are re-read on SIGHUP; a file that no longer
 * reads leaves the tokens read before in force and says why on stderr.
 */
export async function httpServeOptions(
  flags: HttpFlags,
  log: ServerLog,
): Promise<Omit<ServeHttpOptions, "port">> {
  const auth = await authOf(flags, log);
  return {
    ...(flags.host !== undefined && { host: flags.host }),
    ...(auth && { auth }),
    ...(flags["public-url"] !== undefined && { publicUrl: new URL(flags["public-url"]) }),
    ...(flags["allowed-host"] && { allowedHosts: flags["allowed-host"] }),
    ...(flags["allowed-origin"] && { allowedOrigins: flags["allowed-origin"] }),
    ...(flags["session-idle"] !== undefined && { sessionIdleMs: flags["session-idle"] * 1000 }),
    limits: {
      ...(flags["max-subscriptions"] !== undefined && { total: flags["max-subscriptions"] }),
      ...(flags["max-subscriptions-per-principal"] !== undefined && {
        perPrincipal: flags["max-subscriptions-per-principal"],
      }),
      ...(flags["max-sessions"] !== undefined && { sessionsTotal: flags["max-sessions"] }),
      ...(flags["max-sessions-per-principal"] !== undefined && {
        sessionsPerPrincipal: flags["max-sessions-per-principal"],
      }),
    },
  };
}

async function authOf(flags: HttpFlags, log: ServerLog): Promise<ServeHttpOptions["auth"]> {
  const requiredScopes = flags["require-scope"];
  const { staticTokens, jwtBearer } = await import("livecmd/server");
  if (flags.tokens !== undefined) {
    let tokens: StaticTokens;
    try {
      tokens = staticTokens(flags.tokens, { ...(requiredScopes && { requiredScopes }) });
    } catch (error) {
      throw new InputError((error as Error).message.replace(/^livecmd: /, ""));
    }
    process.on("SIGHUP", () => reloadTokens(tokens, flags.tokens!, log));
    return tokens;
  }
  if (flags.issuer === undefined) return undefined;
  return jwtBearer({
    issuer: flags.issuer,
    audience: flags.audience!,
    ...(flags["jwks-uri"] !== undefined && { jwksUri: flags["jwks-uri"] }),
    ...(requiredScopes && { requiredScopes }),
  });
}

function reloadTokens(tokens: StaticTokens, file: string, log: ServerLog): void {
  try {
    tokens.reload();
    log.info(`re-read ${file}: ${tokens.size} tokens`);
  } catch (error) {
    log.warn(`${(error as Error).message}; the tokens read before stay in force`);
  }
}
