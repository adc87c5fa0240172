import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { AuthInfo } from "@modelcontextprotocol/server";
import ts from "typescript";
import { command, defineApp } from "../../packages/livecmd/runtime/index.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import { principalOf } from "../../packages/livecmd/runtime/model/principal.ts";
import {
  asNewRequest,
  holderOf,
} from "../../packages/livecmd/runtime/server/log/requestContext.ts";
import { root } from "../helpers/cli.ts";

/** The runtime package, whose runtime/ the scan reads (paths below are from its folder). */
const LIVECMD = path.join(root, "packages/livecmd");

const token = (token: string, clientId: string, scopes: string[]): AuthInfo => ({
  token,
  clientId,
  scopes,
});

/**
 * Two requests, and what the one rule makes of them: the same principal or not (whom a session
 * belongs to, whom they count against), and whether a run that looks at `ctx.auth` is re-run
 * once for both or once each (the principal and the scopes it sees).
 */
const PAIRS: readonly {
  readonly pair: string;
  readonly first: AuthInfo | undefined;
  readonly second: AuthInfo | undefined;
  readonly samePrincipal: boolean;
  readonly sameRun: boolean;
}[] = [
  {
    pair: "one client, its token renewed",
    first: token("t1", "reader", ["customers:read"]),
    second: token("t2", "reader", ["customers:read"]),
    samePrincipal: true,
    sameRun: true,
  },
  {
    pair: "one client that stepped up to more scopes",
    first: token("t1", "reader", ["customers:read"]),
    second: token("t2", "reader", ["customers:read", "customers:write"]),
    samePrincipal: true,
    sameRun: false,
  },
  {
    pair: "one client, its scopes in another order",
    first: token("t1", "reader", ["a", "b"]),
    second: token("t2", "reader", ["b", "a"]),
    samePrincipal: true,
    sameRun: true,
  },
  {
    pair: "two clients with the same scopes",
    first: token("t1", "reader", ["customers:read"]),
    second: token("t2", "writer", ["customers:read"]),
    samePrincipal: false,
    sameRun: false,
  },
];

const whoami = command({ live: true }, (ctx) => ({
  who: ctx.auth?.clientId,
  scopes: ctx.auth?.scopes,
}));

describe("one principal rule: a principal is its token's client id (runtime/model/principal.ts)", () => {
  for (const { pair, first, second, samePrincipal, sameRun } of PAIRS) {
    it(`${pair}: ${samePrincipal ? "one principal" : "two principals"}, ${sameRun ? "one re-run" : "a re-run each"}`, async () => {
      assert.equal(principalOf(first) === principalOf(second), samePrincipal);
      // Whom a session or subscription counts against is the principal, on any connection.
      const holders = [first, second].map((auth, i) =>
        asNewRequest(() => holderOf(auth), { address: "127.0.0.1", port: 5000 + i }),
      );
      assert.equal(holders[0] === holders[1], samePrincipal);

      const app = defineApp({ name: "who", commands: { whoami }, agent: { grant: [whoami] } });
      const live = new LiveRegistry(app, { onError: () => {} });
      for (const auth of [first, second])
        await live.add("whoami", [], { uri: "who://me", notify: () => {} }, auth);
      assert.equal(live.stats().groups, sameRun ? 1 : 2);
      live.close();
    });
  }

  it("two principals arriving together at a run that does not look at who runs it: one run, one group", async () => {
    let runs = 0;
    const count = command({ live: true }, async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { n: 1 };
    });
    const app = defineApp({ name: "count", commands: { count }, agent: { grant: [count] } });
    const live = new LiveRegistry(app, { onError: () => {} });
    await Promise.all(
      PAIRS.map(({ first }, i) =>
        live.add("count", [], { uri: `count://${i}`, notify: () => {} }, first),
      ),
    );
    assert.deepEqual({ runs, groups: live.stats().groups }, { runs: 1, groups: 1 });
    live.close();
  });

  it("without auth there is no principal: a request counts against its TCP connection", () => {
    assert.equal(principalOf(undefined), undefined);
    assert.equal(
      asNewRequest(() => holderOf(undefined), { address: "127.0.0.1", port: 5000 }),
      "connection 127.0.0.1:5000",
    );
    assert.equal(holderOf(undefined), undefined);
  });

  it("no runtime file but principal.ts reads a client id", () => {
    const readers = typescriptFiles("runtime")
      .filter((file) => file !== "runtime/model/principal.ts")
      .flatMap((file) => clientIdReads(file, readFileSync(path.join(LIVECMD, file), "utf8")));
    assert.deepEqual(readers, []);
  });

  it("the scan finds a read of clientId, and passes a verifier setting one", () => {
    assert.deepEqual(clientIdReads("sample.ts", "const who = auth?.clientId;"), ["sample.ts:1"]);
    assert.deepEqual(clientIdReads("sample.ts", "return { token, clientId: found.clientId };"), []);
  });
});

function typescriptFiles(folder: string): string[] {
  return readdirSync(path.join(LIVECMD, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return typescriptFiles(relative);
    return entry.name.endsWith(".ts") ? [relative] : [];
  });
}

/**
 * Each `x.clientId` read in `text`, as `file:line`: deciding who the principal is by hand. A
 * verifier copying one into the `AuthInfo` it builds (`clientId: found.clientId`) names it.
 */
function clientIdReads(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const namesOne =
      node.parent !== undefined &&
      ts.isPropertyAssignment(node.parent) &&
      ts.isIdentifier(node.parent.name) &&
      node.parent.name.text === "clientId";
    if (ts.isPropertyAccessExpression(node) && node.name.text === "clientId" && !namesOne) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
