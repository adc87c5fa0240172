/**
 * Issue 46: revocation ends every watch. From `kill -HUP`'s re-read of the tokens file (the
 * `reload()` the CLI calls) to the end of every watch tool call waiting under the token removed,
 * 2026-07-28 and 2025 calls alike; against the listens opened under the same token in the same
 * rounds, which revocation ended before (the peer: both go through the endpoint's token holds).
 *
 *   npm run bench -- revocation        # this row alone, printed, nothing written
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExampleApp } from "../example/app.ts";
import {
  MAX_WATCH_WAIT_MS,
  type WatchAnswer,
} from "../packages/livecmd/runtime/model/watchTool.ts";
import {
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../packages/livecmd/runtime/server/index.ts";
import { openListen, untilEnd } from "../test/helpers/rawStreams.ts";
import { tokensFile } from "../test/helpers/tokensFile.ts";
import { runAlone } from "./read.bench.ts";
import { figureOf, percentile, ratio, type BenchModule, type Section } from "./lib/section.ts";

const ROUNDS = 7;
/** Waiting watch calls under the revoked token each round, half on each era. */
const CALLS = 64;
/** Listens under the same token each round. */
const LISTENS = 64;
const BYSTANDER = "bystander-secret-0123";

interface Round {
  calls: number[];
  listens: number[];
}

export const revocationBench: BenchModule = {
  async run(context): Promise<Section> {
    const file = tokensFile(`${BYSTANDER} # bystander\n`);
    const auth = staticTokens(file);
    // A waiting call counts as a listen: one principal's share (64) would refuse half of them.
    const limits = { listensPerPrincipal: CALLS + LISTENS };
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0, auth, limits });
    const rounds: Round[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const victim = `victim-${round}-secret-0123`;
        writeFileSync(file, `${BYSTANDER} # bystander\n${victim} # victim\n`);
        auth.reload();
        const revoke = () => {
          writeFileSync(file, `${BYSTANDER} # bystander\n`);
          auth.reload();
        };
        rounds.push(await revokeOnce(serving, victim, revoke));
        context.log(`revocation: round ${round + 1} of ${ROUNDS}`);
      }
    } finally {
      await serving.close();
    }
    return section(rounds);
  },
};

/** Opens the calls and listens under `victim`, then `revoke`s it, and times each end. */
async function revokeOnce(
  serving: HttpServing,
  victim: string,
  revoke: () => void,
): Promise<Round> {
  const { url, live } = serving;
  const before = live.stats().subscriptions;
  const clients = await Promise.all(
    (["2026-07-28", "legacy"] as const).map((era) => connected(url, victim, era)),
  );
  const calls = await Promise.all(
    Array.from({ length: CALLS }, (_, i) => waitingCall(clients[i % 2]!, i + 1)),
  );
  const listens = await Promise.all(
    Array.from({ length: LISTENS }, (_, i) =>
      openListen(url, [`app://customers_index?page=${i + 1}`], victim),
    ),
  );
  // Revoked once every call and listen is held: each counts one subscription.
  while (live.stats().subscriptions < before + CALLS + LISTENS)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const revoked = performance.now();
  revoke();
  const ended = (settled: Promise<unknown>) =>
    settled.then(
      () => performance.now() - revoked,
      () => performance.now() - revoked,
    );
  const [callTimes, listenTimes] = await Promise.all([
    Promise.all(calls.map(({ waiting }) => ended(waiting))),
    Promise.all(listens.map((listen) => ended(untilEnd(listen)))),
  ]);
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  return { calls: callTimes, listens: listenTimes };
}

async function connected(url: URL, token: string, era: "2026-07-28" | "legacy"): Promise<Client> {
  const client = new Client(
    { name: "revoked", version: "0" },
    { versionNegotiation: { mode: era === "legacy" ? era : { pin: era } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A watch call on customer `id` from the version it has now: it waits (25 s) for a change. */
async function waitingCall(client: Client, id: number): Promise<{ waiting: Promise<unknown> }> {
  const uri = `app://customers_show/${id}`;
  const first = await client.callTool({
    name: "watch_resources",
    arguments: { resources: [{ uri }] },
  });
  const { resources } = first.structuredContent as unknown as WatchAnswer;
  const waiting = client.callTool(
    { name: "watch_resources", arguments: { resources, timeoutMs: MAX_WATCH_WAIT_MS } },
    { timeout: 60_000 },
  );
  // In an object: an async function returning the promise itself would wait for its end.
  return { waiting };
}

function section(rounds: Round[]): Section {
  const p99 = (pick: (round: Round) => number[]) =>
    rounds.map((round) => percentile(pick(round), 0.99));
  const calls = figureOf(
    "revocation to the end of every waiting watch call, p99 of a round",
    "ms",
    p99((round) => round.calls),
    p99((round) => round.calls),
  );
  const listens = figureOf(
    "revocation to the end of every listen, p99 of a round",
    "ms",
    p99((round) => round.listens),
    p99((round) => round.listens),
  );
  return {
    title: "revocation ends every watch: waiting watch calls against listens",
    method: [
      `\`serveHttp\` of the example app in this process, with a tokens file (\`staticTokens\`); ${ROUNDS} rounds.`,
      `Each round a fresh token opens ${CALLS} watch tool calls waiting on customers 1..${CALLS} (half on 2026-07-28, half on a 2025 session, each from the version it read) and ${LISTENS} 2026-07-28 listens on pages 1..${LISTENS} of the customer list.`,
      "Then its line is removed from the file and `reload()` called (what `kill -HUP` does); each call's end (its -32011 error) and each listen's end are timed from that call.",
      "Figures: the p99 of each round; the ratio is taken round by round.",
    ],
    figures: [calls, listens],
    comparisons: [
      {
        label: "revocation to the end of every waiting watch call, p99",
        value: percentile(
          rounds.flatMap((round) => round.calls),
          0.99,
        ),
        unit: "ms",
        target: { op: "<", value: 100 },
      },
      ratio("waiting watch calls' p99 / listens' p99", calls, listens),
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(revocationBench);
