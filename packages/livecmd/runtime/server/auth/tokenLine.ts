import { cutText } from "../../text/cutText.ts";

/** One line of a tokens file, parsed: `token [scope ...] [# client name]`. */
export interface TokenLine {
  token: string;
  scopes: string[];
  /** The client name after `#`; empty when there is none. */
  name: string;
}

/** The shortest token accepted: 16 characters (`openssl rand -hex 16` gives 32). */
export const MIN_TOKEN_LENGTH = 16;

/** RFC 6750 `b64token`: what a bearer token may be, so that it travels in the header intact. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** RFC 6749 `scope-token`: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Where a line's client name starts: a `#` after whitespace (a `#` inside a word is no comment). */
const COMMENT = /\s#/;

/**
 * A line of the tokens file: undefined for a blank or comment line, the token line, or the
 * one-line reason it does not parse (the token itself is never quoted: it is a secret).
 */
export function parseTokenLine(raw: string): TokenLine | undefined | { problem: string } {
  const line = raw.replace(/\r$/, "");
  if (line.trim() === "" || line.trimStart().startsWith("#")) return undefined;
  const control = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.exec(line);
  if (control)
    return { problem: `a control character (U+${hex(control[0])}) at column ${control.index + 1}` };
  const commentAt = line.search(COMMENT);
  const body = commentAt === -1 ? line : line.slice(0, commentAt);
  const [token = "", ...scopes] = body.trim().split(/\s+/);
  const badAt = token.search(/[^A-Za-z0-9\-._~+/=]/);
  if (!B64TOKEN.test(token))
    return {
      problem: `the token has a character a bearer token cannot carry${badAt === -1 ? "" : ` (U+${hex(token[badAt]!)} at character ${badAt + 1})`}: letters, digits and - . _ ~ + / (RFC 6750 b64token), then = padding`,
    };
  if (token.length < MIN_TOKEN_LENGTH)
    return {
      problem: `the token has ${token.length} characters, fewer than ${MIN_TOKEN_LENGTH}; make one with \`openssl rand -hex 16\``,
    };
  const badScope = scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (badScope !== undefined)
    return {
      problem: `the scope ${JSON.stringify(cutText(badScope, 40))} is not an RFC 6749 scope-token (printable ASCII but " and \\)`,
    };
  return {
    token,
    scopes,
    name: commentAt === -1 ? "" : line.slice(commentAt).trim().slice(1).trim(),
  };
}

function hex(character: string): string {
  return character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
}
