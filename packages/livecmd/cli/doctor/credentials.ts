import { readFileSync } from "node:fs";
import { InputError } from "../inputError.ts";

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The headers doctor sends with every HTTP request: each `--header 'Name: value'`, and
 * `Authorization: Bearer <token>` from `--token-file` (the file's first line; a token is a
 * secret, so it is kept out of the shell's history and `ps`).
 */
export function requestHeaders(
  headers: readonly string[],
  tokenFile: string | undefined,
): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(":");
    const name = header.slice(0, colon).trim();
    const value = header.slice(colon + 1).trim();
    if (colon < 0 || !HEADER_NAME.test(name) || value === "")
      throw new InputError(
        `--header ${JSON.stringify(header)} is not a header; write it as 'Name: value', e.g. --header 'Authorization: Bearer <token>'`,
      );
    sent[name.toLowerCase()] = value;
  }
  if (tokenFile === undefined) return sent;
  if (sent.authorization !== undefined)
    throw new InputError(
      "--token-file and --header 'Authorization: ...' both give a token; pass one",
    );
  sent.authorization = `Bearer ${bearerToken(tokenFile)}`;
  return sent;
}

function bearerToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(`--token-file ${file}: ${(error as Error).message}`);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (token === "" || /\s/.test(token))
    throw new InputError(`--token-file ${file}: its first line must be the bearer token alone`);
  return token;
}
