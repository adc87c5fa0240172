/**
 * Issue 46 finding 4: re-runs shared fairly between holders. Alice's update delay (a write to the
 * customer she watches -> her `resources/updated`) while bob holds 1,024 and 16,384 distinct
 * search URIs, every one of which the same write re-runs, against the same with bob holding none.
 *
 *   npx tsx bench/fairHolders.bench.ts        # prints this row alone, writes nothing
 */
import { pathToFileURL } from "node:url";
import {
  Client,
  StreamableHTTPClientTransport,
  type McpSubscription,
} from "@modelcontextprotocol/client";
import { createExampleApp } from "../example/app.ts";
import {
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../packages/livecmd/runtime/server/index.ts";
import { runAlone } from "./read.bench.ts";
import { figureOf, ratio, type BenchModule, type Figure, type Section } from "./lib/section.ts";
import { tokensFile } from "../test/helpers/tokensFile.ts";

const HELD = [1024, 16_384];
const WRITES = 15;
/** URIs per listen: the RFC's per-connection limit. */
const PER_LISTEN = 64;
const ALICE_URI = "app://customers_show/1";

export const fairHoldersBench: BenchModule = {
  async run(context) {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(
        tokensFile("alice-secret-0123 customers:write # alice\nbob-secret-01234 # bob\n"),
      ),
      // Bob's share raised to what he holds; the totals are the defaults.
      limits: { perPrincipal: 16_384, listensPerPrincipal: 16_384 / PER_LISTEN },
    });
    const alice = await clientOf(serving.url, "alice-secret-0123");
    const bob = await clientOf(serving.url, "bob-secret-01234");
    const bobs: McpSubscription[] = [];
    try {
      const delays = await aliceWatching(serving, alice);
      // Bob idle before and after he holds his URIs: a drift of the machine falls on both sides.
      const idle = await delays(0);
      const held: Figure[] = [];
      for (const count of HELD) {
        context.log(`fair-holders: bob holds ${count} search URIs`);
        while (bobs.length * PER_LISTEN < count)
          bobs.push(await listenToSearches(bob, bobs.length));
        held.push(figureOf(`alice's update, bob holding ${count}`, "ms", await delays(count)));
      }
      for (const listen of bobs.splice(0)) await listen.close();
      idle.push(...(await delays(0)));
      return section(figureOf("alice's update, bob holding none", "ms", idle), held);
    } finally {
      for (const listen of bobs) await listen.close();
      await alice.close();
      await bob.close();
      await serving.close();
    }
  },
};

async function clientOf(url: URL, token: string): Promise<Client> {
  const client = new Client(
    { name: "fair-holders", version: "0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, { authProvider: { token: async () => token } }),
  );
  return client;
}

/** Bob's `listen`th listen: 64 distinct searches that match nobody, each its own group. */
function listenToSearches(bob: Client, listen: number): Promise<McpSubscription> {
  const uris = Array.from(
    { length: PER_LISTEN },
    (_, n) => `app://customers_index?search=nobody%20${listen * PER_LISTEN + n}`,
  );
  return bob.listen({ resourceSubscriptions: uris });
}

/**
 * Alice listens to one customer; the returned function has her rename it `WRITES` times (a tool
 * call, as an agent writes) and times each from the call to her notification, each write's
 * re-runs (bob's `held` and hers) all done before the next.
 */
async function aliceWatching(
  serving: HttpServing,
  alice: Client,
): Promise<(held: number) => Promise<number[]>> {
  let told: (() => void) | undefined;
  alice.setNotificationHandler("notifications/resources/updated", () => told?.());
  await alice.listen({ resourceSubscriptions: [ALICE_URI] });
  let names = 0;
  return async (held) => {
    const samples: number[] = [];
    for (let write = 0; write < WRITES; write++) {
      const reruns = serving.live.stats().reruns;
      const notified = new Promise<void>((resolve) => (told = resolve));
      const started = performance.now();
      await alice.callTool({
        name: "customers_rename",
        arguments: { id: 1, name: `Ada ${++names}` },
      });
      await notified;
      samples.push(performance.now() - started);
      while (serving.live.stats().reruns < reruns + held + 1)
        await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return samples;
  };
}

function section(idle: Figure, held: readonly Figure[]): Section {
  return {
    title: "Fair re-runs between holders: alice's update while bob's watches re-run",
    method: [
      `The example app on a fresh in-memory database served over Streamable HTTP on 127.0.0.1 (2026-07-28) with a tokens file of two principals; alice listens to ${ALICE_URI}, bob to ${HELD.join(" then ")} distinct \`app://customers_index?search=…\` URIs (listens of ${PER_LISTEN}; his share raised to 16,384), each its own group, every one of which a rename of any customer re-runs.`,
      `${WRITES} renames of customer 1 per case, each alice's \`customers_rename\` tool call, timed from the call to her \`notifications/resources/updated\` through the SDK client (as the issue measured it: the write and its notification, as an agent sees them), and every re-run of it done before the next write; bob holding none measured before and after, ${2 * WRITES} writes.`,
      "Client and server share one event loop.",
    ],
    figures: [idle, ...held],
    comparisons: held.map((figure) =>
      ratio(`${figure.label} / bob holding none`, figure, idle, { op: "<=", value: 3 }),
    ),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(fairHoldersBench);
