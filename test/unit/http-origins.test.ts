import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { originAllowed } from "../../packages/livecmd/runtime/server/http/httpFront.ts";
import { isLoopback } from "../../packages/livecmd/runtime/server/http/ownHostNames.ts";

const allowed = originAllowed({
  resource: new URL("https://mcp.example.test/mcp"),
  allowedOrigins: ["https://agent.example"],
});

/** [origin, Host of the request, allowed?, the rule] */
const ORIGINS: [string, string | null, boolean, string][] = [
  ["https://mcp.example.test", "mcp.example.test", true, "the public URL's origin"],
  ["https://agent.example", "127.0.0.1:3000", true, "an origin the endpoint was told"],
  ["http://localhost:3000", "127.0.0.1:3000", true, "a loopback page of this same server"],
  ["http://127.0.0.1:3000", "localhost:3000", true, "any loopback name of it"],
  ["http://[::1]:3000", "[::1]:3000", true, "IPv6 loopback"],
  ["http://localhost", "localhost", true, "the default port on both sides"],
  ["http://localhost:1", "127.0.0.1:3000", false, "a loopback page on another port"],
  ["https://localhost:3000", "localhost:3000", false, "https on loopback is not this server"],
  ["http://evil.example:3000", "evil.example:3000", false, "a page that is not loopback"],
  ["http://localhost:3000", null, false, "a request that names no Host"],
  ["null", "localhost:3000", false, "an opaque origin"],
  ["http://localhost:3000/path", "localhost:3000", false, "no origin has a path"],
];

describe("which pages may call the endpoint (runtime/server/http/httpFront.ts originAllowed)", () => {
  for (const [origin, host, expected, rule] of ORIGINS) {
    it(`${expected ? "allows" : "refuses"} ${origin} sent to ${host}: ${rule}`, () => {
      assert.equal(allowed(origin, host), expected);
    });
  }
});

const ADDRESSES: [string, boolean][] = [
  ["localhost", true],
  ["127.0.0.1", true],
  ["127.1.2.3", true],
  ["::1", true],
  ["[::1]", true],
  ["::ffff:127.0.0.1", true],
  ["10.0.0.1", false],
  ["::ffff:10.0.0.1", false],
  ["0.0.0.0", false],
  ["128.0.0.1", false],
  ["127.0.0.1.example.com", false],
  ["example.com", false],
];

describe("which hosts and peers are this machine's loopback (runtime/server/http/ownHostNames.ts isLoopback)", () => {
  for (const [host, expected] of ADDRESSES) {
    it(`${host} is ${expected ? "" : "not "}loopback`, () => {
      assert.equal(isLoopback(host), expected);
    });
  }
});
