import { isIPv6 } from "node:net";

/**
 * Where a string stops being a URI by RFC 3986 (section 3, the ABNF of appendix A): the
 * character at `index`, in `component`, that the grammar does not allow there.
 */
export interface UriProblem {
  index: number;
  component: "scheme" | "userinfo" | "host" | "port" | "path" | "query" | "fragment";
  message: string;
}

/*
 * The WHATWG URL parser is no judge of this: it percent-encodes a `{`, a space or a non-ASCII
 * letter and accepts the result, which is how a template string passes for a URI. What is
 * checked instead is the grammar itself, for an absolute URI (the MCP schema types a resource's
 * `uri` as `format: uri`, which excludes relative references):
 *
 *   URI       = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
 *   hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty
 *   authority = [ userinfo "@" ] host [ ":" port ]
 *
 * Every path form is `pchar`s and slashes once "//" has been read as the authority, so one scan
 * covers them. A host is an IP-literal in brackets or a reg-name (an IPv4 address is a reg-name
 * by its characters). Non-ASCII characters are not allowed anywhere: they make an IRI
 * (RFC 3987), which a host validating the field as a URI rejects.
 */
const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const ALLOWED = {
  userinfo: new RegExp(`[${UNRESERVED}${SUB_DELIMS}:]`),
  host: new RegExp(`[${UNRESERVED}${SUB_DELIMS}]`),
  path: new RegExp(`[${UNRESERVED}${SUB_DELIMS}:@/]`),
  query: new RegExp(`[${UNRESERVED}${SUB_DELIMS}:@/?]`),
  fragment: new RegExp(`[${UNRESERVED}${SUB_DELIMS}:@/?]`),
};
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const IPV_FUTURE = new RegExp(`^[Vv][0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);

/** The first place where `uri` breaks the grammar, or undefined for a URI. */
export function uriProblem(uri: string): UriProblem | undefined {
  const scheme = SCHEME.exec(uri);
  if (!scheme) {
    return {
      index: 0,
      component: "scheme",
      message: "has no scheme (a URI starts with one, like app: or https:)",
    };
  }
  const fragmentAt = indexOrEnd(uri, "#", scheme[0].length);
  const queryAt = indexOrEnd(uri, "?", scheme[0].length, fragmentAt);
  const hierPartAt = scheme[0].length;
  const pathAt = uri.startsWith("//", hierPartAt)
    ? indexOrEnd(uri, "/", hierPartAt + 2, queryAt)
    : hierPartAt;
  return (
    (pathAt > hierPartAt ? authorityProblem(uri, hierPartAt + 2, pathAt) : undefined) ??
    scan(uri, pathAt, queryAt, "path") ??
    scan(uri, queryAt + 1, fragmentAt, "query") ??
    scan(uri, fragmentAt + 1, uri.length, "fragment")
  );
}

function authorityProblem(uri: string, start: number, end: number): UriProblem | undefined {
  const at = indexOrEnd(uri, "@", start, end);
  const hostAt = at < end ? at + 1 : start;
  const userinfoProblem = at < end ? scan(uri, start, at, "userinfo") : undefined;
  if (userinfoProblem) return userinfoProblem;
  if (uri[hostAt] === "[") {
    const close = indexOrEnd(uri, "]", hostAt, end);
    if (close === end || !isIpLiteral(uri.slice(hostAt + 1, close))) {
      return {
        index: hostAt,
        component: "host",
        message: "has a bracketed host that is neither an IPv6 address nor an IPvFuture",
      };
    }
    return portProblem(uri, close + 1, end);
  }
  const portAt = indexOrEnd(uri, ":", hostAt, end);
  return scan(uri, hostAt, portAt, "host") ?? portProblem(uri, portAt, end);
}

/** RFC 3986 has no zone identifiers (`%eth0`), which Node's IPv6 check accepts. */
function isIpLiteral(inside: string): boolean {
  return (isIPv6(inside) && !inside.includes("%")) || IPV_FUTURE.test(inside);
}

function portProblem(uri: string, start: number, end: number): UriProblem | undefined {
  if (start === end) return undefined;
  if (uri[start] !== ":") return badCharacter(uri, start, "host");
  for (let index = start + 1; index < end; index++) {
    if (!/[0-9]/.test(uri[index]!)) return badCharacter(uri, index, "port");
  }
  return undefined;
}

function scan(
  uri: string,
  start: number,
  end: number,
  component: keyof typeof ALLOWED,
): UriProblem | undefined {
  for (let index = start; index < end; index++) {
    const char = uri[index]!;
    if (char === "%") {
      if (!HEX_PAIR.test(uri.slice(index + 1, index + 3))) {
        return {
          index,
          component,
          message: `has "%" at position ${index} without two hex digits after it (write %25 for a percent sign)`,
        };
      }
      index += 2;
    } else if (!ALLOWED[component].test(char)) return badCharacter(uri, index, component);
  }
  return undefined;
}

function badCharacter(uri: string, index: number, component: UriProblem["component"]): UriProblem {
  const char = String.fromCodePoint(uri.codePointAt(index)!);
  return {
    index,
    component,
    message: `has ${JSON.stringify(char)} at position ${index} (in the ${component}), which a URI does not allow there${encodingHint(char)}`,
  };
}

function encodingHint(char: string): string {
  const code = char.codePointAt(0)!;
  // An unpaired surrogate has no UTF-8 form to percent-encode, and a port takes digits only.
  if (code >= 0xd800 && code <= 0xdfff) return "";
  const encoded = encodeURIComponent(char);
  return encoded === char ? "" : `; percent-encode it as ${encoded}`;
}

function indexOrEnd(text: string, char: string, from: number, end = text.length): number {
  const index = text.indexOf(char, from);
  return index < 0 || index > end ? end : index;
}
