import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { uriProblem, type UriProblem } from "../../packages/livecmd/cli/doctor/uriGrammar.ts";

/** RFC 3986's absolute-URI grammar, as `livecmd doctor` holds resource uris to it. */
describe("RFC 3986 URI grammar", () => {
  const uris = [
    "app://customers_index",
    "app://customers_show/12",
    "docs://onboarding/engineering",
    "file:///etc/hosts",
    "urn:isbn:0451450523",
    "mailto:ada@example.com",
    "https://user:secret@example.com:8443/a/b;c=d?q=1&r=%20#top",
    "http://[::1]:3000/mcp",
    "http://[v7.fe80::1]/",
    "app://x/%E2%9C%93",
    "app://x?query=/with?slashes",
    "app:",
  ];
  for (const uri of uris) {
    it(`accepts ${uri}`, () => assert.equal(uriProblem(uri), undefined));
  }

  const broken: [
    uri: string,
    index: number,
    component: UriProblem["component"],
    message: RegExp,
  ][] = [
    [
      "docs://team/{team}/policy/{name}",
      12,
      "path",
      /"\{" at position 12 \(in the path\).*percent-encode it as %7B/,
    ],
    ["app://x?a={b}", 10, "query", /"\{" at position 10 \(in the query\)/],
    ["app://x/a b", 9, "path", /" " at position 9.*%20/],
    ["app://x/café", 11, "path", /"é" at position 11.*%C3%A9/],
    ["app://x/100%", 11, "path", /"%" at position 11 without two hex digits/],
    ["app://x/%zz", 8, "path", /"%" at position 8 without two hex digits/],
    ["app://x#a#b", 9, "fragment", /"#" at position 9 \(in the fragment\)/],
    ["app://x\\y", 7, "host", /"\\\\" at position 7 \(in the host\)/],
    ["http://a@b@c/", 10, "host", /"@" at position 10 \(in the host\)/],
    [
      "http://h:80a/",
      11,
      "port",
      /"a" at position 11 \(in the port\), which a URI does not allow there$/,
    ],
    ["http://[fe80::1%eth0]/", 7, "host", /neither an IPv6 address nor an IPvFuture/],
    ["http://[::1/", 7, "host", /neither an IPv6 address nor an IPvFuture/],
    ["customers_show/12", 0, "scheme", /has no scheme/],
    ["//example.com/x", 0, "scheme", /has no scheme/],
    ["1app://x", 0, "scheme", /has no scheme/],
  ];
  for (const [uri, index, component, message] of broken) {
    it(`rejects ${uri}: ${component} at ${index}`, () => {
      const problem = uriProblem(uri);
      assert.deepEqual([problem?.index, problem?.component], [index, component]);
      assert.match(problem!.message, message);
    });
  }
});
