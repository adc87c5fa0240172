import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import type { CommandEntry } from "../../packages/livecmd/runtime/model/catalog.ts";
import { confirmationMessage } from "../../packages/livecmd/runtime/server/policy/confirmation.ts";
import {
  serveHttp,
  serveStdio,
  staticTokens,
} from "../../packages/livecmd/runtime/server/index.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { initialize, messagesOf, sessionRequest } from "../helpers/rawStreams.ts";
import { root, run } from "../helpers/cli.ts";
import { CLI, servedCli, type ServedCli } from "../helpers/servedCli.ts";
import { servedExample } from "../helpers/servedExample.ts";
import { tokensFile } from "../helpers/tokensFile.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";

type Question = ElicitRequest["params"];

/** A person who answers every question with `action`, and remembers what they were asked. */
function person(action: ElicitResult["action"]): {
  asked: Question[];
  answer: (question: Question) => ElicitResult;
} {
  const asked: Question[] = [];
  return {
    asked,
    answer: (question) => {
      asked.push(question);
      return action === "accept" ? { action, content: {} } : { action };
    },
  };
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

const QUESTION = `Delete this customer, with every order, tag and attribute of theirs?

customers_delete with
  id: 3

Deletes a customer with their orders, tags and attributes, returning \`{ id, name, orders_deleted }\`.`;

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    describe(`confirm commands ask the person by elicitation (${protocol}, ${transport})`, () => {
      const connect = (answer?: (question: Question) => ElicitResult) =>
        testApp(createExampleApp(":memory:")).mcp({
          protocol,
          transport,
          ...(answer && { elicit: answer }),
        });

      it("asks with the app's question, the command, its arguments and description; accepting runs it", async () => {
        const yes = person("accept");
        const mcp = await connect(yes.answer);
        const result = await mcp.call("customers_delete", { id: 3 });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.deepEqual(JSON.parse(textOf(result)), {
          id: 3,
          name: "Alan Turing",
          orders_deleted: 6,
        });
        assert.equal(yes.asked.length, 1);
        assert.equal(yes.asked[0]!.message, QUESTION);
        assert.equal((yes.asked[0] as { mode?: string }).mode ?? "form", "form");
        await protocolError(mcp.read("app://customers_show/3"), -32603);
        await mcp.close();
      });

      for (const action of ["decline", "cancel"] as const) {
        it(`a person who answers ${action} gets an isError result, and nothing runs`, async () => {
          const no = person(action);
          const mcp = await connect(no.answer);
          const result = await mcp.call("customers_delete", { id: 3 });
          assert.equal(result.isError, true);
          assert.match(
            textOf(result),
            action === "decline"
              ? /^The person declined to run customers_delete; nothing ran/
              : /^The person dismissed the confirmation of customers_delete without answering; nothing ran/,
          );
          assert.equal(no.asked.length, 1);
          assert.equal(
            JSON.parse(
              (
                (await mcp.read("app://customers_show/3")).contents[0] as {
                  text: string;
                }
              ).text,
            ).name,
            "Alan Turing",
          );
          await mcp.close();
        });
      }

      it(
        "nobody answers within the timeout: a tool error like a decline's, and nothing runs",
        {
          skip:
            protocol === "2026-07-28" &&
            "on 2026-07-28 the server waits for nothing: the question's requestState expires instead (below)",
        },
        async () => {
          const asked: Question[] = [];
          const mcp = await testApp(createExampleApp(":memory:")).mcp({
            protocol,
            transport,
            confirmTimeoutMs: 200,
            // A person who never answers.
            elicit: (question) => {
              asked.push(question);
              return new Promise<ElicitResult>(() => {});
            },
          });
          const result = await mcp.call("customers_delete", { id: 3 });
          assert.equal(result.isError, true);
          assert.equal(
            textOf(result),
            "Nobody answered the confirmation of customers_delete within 1 s; nothing ran. Ask the user before calling it again",
          );
          assert.equal(asked.length, 1);
          await mcp.read("app://customers_show/3");
          await mcp.close();
        },
      );

      it("a client that declares no elicitation gets today's answer, and nothing runs", async () => {
        const mcp = await connect();
        const result = await mcp.call("customers_delete", { id: 3 });
        assert.equal(result.isError, true);
        assert.match(
          textOf(result),
          /^customers_delete needs a person's confirmation, and this client cannot ask for it/,
        );
        await mcp.read("app://customers_show/3");
        await mcp.close();
      });
    });
  }
}

describe("confirmation through `livecmd serve` as a child process (stdio)", () => {
  for (const era of PROTOCOLS) {
    /** customers_delete of customer 3 on a fresh `livecmd serve`, answered by `who`. */
    const deleteAsked = async (who: ReturnType<typeof person>) => {
      const served = await servedExample(era, "stdio", { elicit: who.answer });
      try {
        return (await served.client.callTool({
          name: "customers_delete",
          arguments: { id: 3 },
        })) as CallToolResult;
      } finally {
        await served.close();
      }
    };

    it(`asks over stdio on ${era}: accept runs it, decline does not`, async () => {
      const no = person("decline");
      assert.equal((await deleteAsked(no)).isError, true);
      assert.equal(no.asked[0]!.message, QUESTION);

      const ran = await deleteAsked(person("accept"));
      assert.equal(ran.isError, undefined, JSON.stringify(ran));
      assert.equal((ran.structuredContent as { orders_deleted: number }).orders_deleted, 6);
    });
  }
});

/** A 2026-07-28 client that hands `input_required` back instead of asking anyone (manual mode). */
async function manualClient(url: URL, token?: string): Promise<Client> {
  const client = new Client(
    { name: "confirm-test", version: "0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      url,
      token === undefined ? {} : { authProvider: { token: async () => token } },
    ),
  );
  return client;
}

type Answered = { resultType?: string; requestState?: string; isError?: boolean };
const MANUAL = { allowInputRequired: true } as never;

describe("who may answer a confirmation (2026-07-28 over HTTP with auth)", () => {
  const tokens = () =>
    tokensFile(
      "alice-secret-0123456 customers:write # alice\nbob-secret-01234567 customers:write # bob\n",
    );

  it("only the principal who called may answer, and only for the arguments asked about", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(tokens()),
    });
    const alice = await manualClient(serving.url, "alice-secret-0123456");
    const bob = await manualClient(serving.url, "bob-secret-01234567");
    const call = { name: "customers_delete", arguments: { id: 3 } };
    const asked = (await alice.callTool(call, MANUAL)) as Answered;
    assert.equal(asked.resultType, "input_required");
    assert.equal(typeof asked.requestState, "string");
    const yes = {
      inputResponses: { confirm: { action: "accept", content: {} } },
      requestState: asked.requestState,
    };

    // Bob replays Alice's question with a yes: refused before anything runs.
    const stolen = await protocolError(bob.callTool({ ...call, ...yes } as never, MANUAL), -32602);
    assert.equal(stolen.message, "Invalid or expired requestState");
    // A forged state: refused the same way.
    await protocolError(
      alice.callTool({ ...call, ...yes, requestState: `${asked.requestState}x` } as never, MANUAL),
      -32602,
    );
    // Alice's yes to customer 3 is no yes to customer 4: the person is asked again.
    const other = (await alice.callTool(
      { ...call, arguments: { id: 4 }, ...yes } as never,
      MANUAL,
    )) as Answered;
    assert.equal(other.resultType, "input_required");

    const ran = (await alice.callTool({ ...call, ...yes } as never, MANUAL)) as CallToolResult;
    assert.equal(ran.isError, undefined, JSON.stringify(ran));
    assert.equal((ran.structuredContent as { id: number }).id, 3);
    // The same yes again (a retry, a replay): refused, the command does not run twice.
    const replayed = (await alice.callTool({ ...call, ...yes } as never, MANUAL)) as CallToolResult;
    assert.equal(replayed.isError, true);
    assert.match(textOf(replayed), /^This confirmation of customers_delete was already used/);
    await alice.close();
    await bob.close();
    await serving.close();
  });
});

describe("a 2026-07-28 yes is spent once on a SQLite file: by every process serving it, and after a restart", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "livecmd-spent-"));
  const database = path.join(folder, "shop.sqlite");
  // Every process signs with the same key, as replicas do, so each can read the others' questions.
  const env = { LIVECMD_REQUEST_STATE_KEY: randomBytes(32).toString("base64") };
  const serving: ServedCli[] = [];
  const serve = async () => {
    const served = await servedCli([], { database, env });
    serving.push(served);
    return served;
  };
  after(async () => {
    for (const served of serving) await served.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A 2026-07-28 call of `call` with `yes` to the question it was asked, through `served`. */
  const answer = async (served: ServedCli, yes: object) => {
    const client = await manualClient(served.url);
    try {
      return (await client.callTool(yes as never, MANUAL)) as CallToolResult;
    } finally {
      await client.close();
    }
  };

  it("a yes accepted by one process is refused as spent by another on the same file, and by a process started after the first stopped", async () => {
    const first = await serve();
    const call = { name: "customers_delete", arguments: { id: 3 } };
    const asking = await manualClient(first.url);
    const asked = (await asking.callTool(call, MANUAL)) as Answered;
    await asking.close();
    assert.equal(asked.resultType, "input_required");
    const yes = {
      ...call,
      inputResponses: { confirm: { action: "accept", content: {} } },
      requestState: asked.requestState,
    };
    const ran = await answer(first, yes);
    assert.equal(ran.isError, undefined, JSON.stringify(ran));

    const second = await serve();
    await first.close();
    const restarted = await serve();
    for (const [which, served] of [
      ["another process serving the file", second],
      ["a process started after the first stopped", restarted],
    ] as const) {
      const replayed = await answer(served, yes);
      assert.equal(replayed.isError, true, which);
      assert.match(
        textOf(replayed),
        /^This confirmation of customers_delete was already used/,
        which,
      );
    }
  });
});

describe("a 2026-07-28 question expires after the confirmation timeout", () => {
  it("a yes sent after it is refused as expired, and nothing runs", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      confirmTimeoutMs: 1000,
    });
    const client = new Client(
      { name: "confirm-test", version: "0" },
      {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        capabilities: { elicitation: { form: {} } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(serving.url));
    const call = { name: "customers_delete", arguments: { id: 3 } };
    const asked = (await client.callTool(call, {
      allowInputRequired: true,
    } as never)) as unknown as {
      requestState: string;
    };
    // The state's expiry is whole seconds: past it within two more.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const late = {
      ...call,
      inputResponses: { confirm: { action: "accept", content: {} } },
      requestState: asked.requestState,
    };
    const refused = await protocolError(
      client.callTool(late as never, { allowInputRequired: true } as never),
      -32602,
    );
    assert.equal(refused.message, "Invalid or expired requestState");
    const { contents } = await client.readResource({ uri: "app://customers_show/3" });
    assert.match(JSON.stringify(contents), /Alan Turing/);
    await client.close();
    await serving.close();
  });
});

describe("a 2025-era answer that is no elicitation result, or that comes too late (raw HTTP)", () => {
  /** A raw 2025 session that declares form elicitation, and its call of customers_delete. */
  async function callAsked(confirmTimeoutMs?: number) {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      ...(confirmTimeoutMs !== undefined && { confirmTimeoutMs }),
    });
    const { session } = await initialize(serving.url, undefined, { elicitation: { form: {} } });
    const call = await sessionRequest(serving.url, session!, {
      id: "call-1",
      method: "tools/call",
      params: { name: "customers_delete", arguments: { id: 3 } },
    });
    const messages = messagesOf(call);
    const question = (await messages.next()).value as { id: string; method: string };
    assert.equal(question.method, "elicitation/create");
    const answer = (result: unknown) =>
      sessionRequest(serving.url, session!, { id: question.id, result });
    const outcome = async () => {
      for await (const message of messages)
        if (message.id === "call-1")
          return (
            (message.result as CallToolResult | undefined) ?? assert.fail(JSON.stringify(message))
          );
      return assert.fail("the call's stream ended without its answer");
    };
    const stillThere = async () => {
      const read = await sessionRequest(serving.url, session!, {
        id: "read-1",
        method: "resources/read",
        params: { uri: "app://customers_show/3" },
      });
      return (await read.text()).includes("Alan Turing");
    };
    return { answer, outcome, stillThere, close: () => serving.close() };
  }

  for (const [garbage, why] of [
    [{ action: "maybe" }, 'its action must be "accept", "decline" or "cancel", not "maybe"'],
    [{}, 'its action must be "accept", "decline" or "cancel", not missing'],
    [{ action: "accept", content: "yes" }, 'its content must be an object, not "yes"'],
  ] as const) {
    it(`${JSON.stringify(garbage)}: one line saying what is wrong with it, and nothing runs`, async () => {
      const asked = await callAsked();
      assert.equal((await asked.answer(garbage)).status, 202);
      const result = await asked.outcome();
      assert.equal(result.isError, true);
      assert.equal(
        textOf(result),
        `The confirmation of customers_delete failed: the client's answer is no elicitation result: ${why}; nothing ran`,
      );
      assert.ok(await asked.stillThere());
      await asked.close();
    });
  }

  it("a yes sent after the timeout is not taken: the call has ended, and nothing runs", async () => {
    const asked = await callAsked(200);
    const result = await asked.outcome();
    assert.match(
      textOf(result),
      /^Nobody answered the confirmation of customers_delete within 1 s/,
    );
    assert.equal((await asked.answer({ action: "accept", content: {} })).status, 202);
    assert.ok(await asked.stillThere());
    await asked.close();
  });
});

describe("the key that signs a question's state, and the confirmation timeout", () => {
  const serve = (env: NodeJS.ProcessEnv, flags: string[] = []) =>
    run(process.execPath, [...CLI, "serve", "--app", "example/app.ts", ...flags], {
      cwd: root,
      env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:", ...env },
      timeoutMs: 60_000,
    });

  it("a key shorter than 32 bytes is refused in the words of where it came from", async () => {
    assert.throws(
      () => serveStdio(createExampleApp(":memory:"), { requestStateKey: "too short" }),
      /^Error: livecmd: requestStateKey must be at least 32 bytes, got 9; make one with `openssl rand -base64 32`/,
    );
    const refused = await serve({ LIVECMD_REQUEST_STATE_KEY: "too short" });
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      "livecmd: LIVECMD_REQUEST_STATE_KEY must be at least 32 bytes, got 9; make one with `openssl rand -base64 32` and give every replica the same\n",
    );
  });

  it("--confirm-timeout must be a positive number of seconds", async () => {
    const refused = await serve({}, ["--confirm-timeout", "0"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--confirm-timeout must be a positive number of seconds, got 0/);
  });
});

describe("the question a person reads", () => {
  const entry = {
    name: "notes_purge",
    title: "Purge notes",
    description: "Deletes every note older than a date.",
  } as CommandEntry;

  it("without the app's wording asks to run the command by its title, arguments one a line", () => {
    assert.equal(
      confirmationMessage(entry, { before: "2025-01-01", dry_run: false }, undefined),
      `Run Purge notes?

notes_purge with
  before: "2025-01-01"
  dry_run: false

Deletes every note older than a date.`,
    );
  });

  it("cuts an argument a client made huge, and says a command without arguments has none", () => {
    const message = confirmationMessage(entry, { before: "x".repeat(100_000) }, "Sure?");
    assert.ok(message.length < 1000, `${message.length} characters`);
    assert.match(
      message,
      /^Sure\?\n\nnotes_purge with\n {2}before: "x{499}… \(100002 characters\)\n/,
    );
    assert.equal(
      confirmationMessage(entry, {}, undefined),
      "Run Purge notes?\n\nnotes_purge with no arguments\n\nDeletes every note older than a date.",
    );
  });
});
