import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Report, Step } from "../../packages/livecmd/cli/doctor/report.ts";
import { livecmd, root, type CliRun } from "../helpers/cli.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

/*
 * `livecmd doctor` as a user runs it (the compiled CLI, a real child process) against real SDK
 * servers that it starts itself: one fixture per fault of the chapter, a healthy one, and
 * livecmd's own example app on stdio and on Streamable HTTP.
 */

const FRESH_DATABASE = { LIVECMD_EXAMPLE_DB: ":memory:" };
const ERAS = ["2026-07-28", "2025"];

/** `livecmd serve --http 0` of the example app, with `flags`, and the URL it prints. */
async function servedOverHttp(
  flags: string[] = [],
): Promise<{ server: ReturnType<typeof spawn>; url: string }> {
  const server = spawn(
    process.execPath,
    ["packages/livecmd/bin/livecmd.js", "serve", "--http", "0", ...flags],
    {
      cwd: root,
      env: { ...process.env, ...FRESH_DATABASE },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let printed = "";
    server.stdout!.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(printed);
      if (found) resolve(found[0]);
    });
    server.once("exit", (code) =>
      reject(new Error(`livecmd serve --http 0 exited (${code}): ${printed}`)),
    );
  });
  return { server, url };
}

function fixtureCommand(fixture: string): string[] {
  return [
    "--",
    process.execPath,
    "--import",
    "tsx",
    path.join("test/doctor/fixtures", `${fixture}.ts`),
  ];
}

async function doctorJson(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ run: CliRun; report: Report }> {
  const run = await livecmd(["doctor", "--json", ...args], env);
  assert.equal(run.stderr, "", "doctor prints nothing else");
  return { run, report: JSON.parse(run.stdout) as Report };
}

const failed = (steps: readonly Step[]) => steps.filter((step) => step.status === "fail");

const FAULTS = [
  {
    rule: "fault 1, resources registered after the capabilities were declared, fails at capabilities",
    fixture: "undeclaredResources",
    step: "capabilities",
    detail:
      /^no resources capability, yet resources\/list gives 1 and resources\/templates\/list 0: a host never asks for them/,
    fix: /^declare resources at the handshake/,
  },
  {
    rule: "fault 2, a cursor the listing already gave, fails at resources/list",
    fixture: "loopingCursor",
    step: "resources/list",
    detail:
      /^page 3 gave nextCursor "page-2", which page 1 gave already: a host following cursors goes round/,
    fix: /nextCursor that leads to the next page and was never given before/,
  },
  {
    rule: "fault 3, a template string on resources/list, fails at resource uris",
    fixture: "templateStringUri",
    step: "resource uris",
    detail:
      /^docs:\/\/team\/\{team\}\/policy\/\{name\} is a template string, not a URI \("\{" at position 12\): a host that validates uri drops the entry/,
    fix: /^list each template string on resources\/templates\/list as a uriTemplate/,
  },
  {
    rule: "fault 4, a listed resource whose read fails, fails at resources/read",
    fixture: "failingRead",
    step: "resources/read",
    detail: /^docs:\/\/reports\/quarterly fails: -32603 reports store unreachable/,
    fix: /^make resources\/read serve every uri that resources\/list gives/,
  },
];

describe("livecmd doctor", () => {
  for (const { rule, fixture, step, detail, fix } of FAULTS) {
    it(`${rule}, on both eras, with the fix, and nowhere else (exit 1)`, async () => {
      const { run, report } = await doctorJson(fixtureCommand(fixture));
      assert.equal(run.code, 1);
      const failures = failed(report.steps);
      assert.deepEqual(
        failures.map((failure) => [failure.step, failure.era]),
        ERAS.map((era) => [step, era]),
      );
      for (const failure of failures) {
        assert.match(failure.detail, detail);
        assert.match(failure.fix ?? "", fix);
      }
    });
  }

  it("passes a healthy server on every step of both eras (exit 0)", async () => {
    const { run, report } = await doctorJson(fixtureCommand("healthy"));
    assert.equal(run.code, 0);
    const expectedSteps = (subscription: string) => [
      "connect",
      "capabilities",
      "resources/list",
      "resources/templates/list",
      "resource uris",
      "template syntax",
      "resource metadata",
      "template metadata",
      "resources/read",
      "read template",
      subscription,
    ];
    assert.deepEqual(
      report.steps.map((step) => `${step.era} ${step.step} ${step.status}`),
      [
        ...expectedSteps("subscriptions/listen").map((step) => `2026-07-28 ${step} ok`),
        ...expectedSteps("resources/subscribe").map((step) => `2025 ${step} ok`),
      ],
    );
    const templateRead = report.steps.find((step) => step.step === "read template")!;
    assert.match(
      templateRead.detail,
      /^docs:\/\/policy\/\{name\} as docs:\/\/policy\/on-call-escalation \(name from completion\/complete\)/,
    );
  });

  it("times a stdio server's answers, not its start: one slow to start (2.5 s) lists at its own speed on both eras", async () => {
    const { run, report } = await doctorJson(fixtureCommand("healthy"), {
      HEALTHY_START_MS: "2500",
    });
    assert.equal(run.code, 0);
    assert.deepEqual(
      report.steps.filter((step) => step.status !== "ok"),
      [],
    );
  });

  it("warns when tools say nothing of what they do: the host asks the person before each call", async () => {
    const { run, report } = await doctorJson(fixtureCommand("unannotatedTools"));
    assert.equal(run.code, 0);
    const steps = report.steps.filter((step) => step.era === "2026-07-28");
    const annotations = steps.find((step) => step.step === "tool annotations")!;
    assert.equal(annotations.status, "warn");
    assert.equal(
      annotations.detail,
      "2 of 3 tools with no readOnlyHint: a host takes each for a write that may destroy data and asks the person before every call: ticket_lookup, ticket_close",
    );
    assert.match(annotations.fix!, /^annotate every tool: readOnlyHint: true when it only reads/);
    const confirmations = steps.find((step) => step.step === "confirmations")!;
    assert.equal(confirmations.status, "warn");
    assert.equal(
      confirmations.detail,
      "a host asks the person before 2 of 3 tools, 2 of them only because they say nothing: ticket_lookup, ticket_close",
    );
  });

  it("reports the shape of --json: target, each era, every step, the totals", async () => {
    const { report } = await doctorJson(fixtureCommand("failingRead"));
    assert.deepEqual(Object.keys(report), ["target", "eras", "steps", "summary"]);
    assert.equal(report.target, fixtureCommand("failingRead").slice(1).join(" "));
    assert.deepEqual(
      report.eras.map(({ era, served, protocolVersion, server }) => ({
        era,
        served,
        protocolVersion,
        server,
      })),
      [
        {
          era: "2026-07-28",
          served: true,
          protocolVersion: "2026-07-28",
          server: { name: "reports", version: "1.0.0" },
        },
        {
          era: "2025",
          served: true,
          protocolVersion: "2025-11-25",
          server: { name: "reports", version: "1.0.0" },
        },
      ],
    );
    for (const step of report.steps) {
      const keys =
        step.status === "ok"
          ? ["step", "era", "status", "detail"]
          : ["step", "era", "status", "detail", "fix"];
      assert.deepEqual(Object.keys(step), keys);
    }
    assert.deepEqual(report.summary, { ok: 18, warn: 0, fail: 2 });
  });

  it("prints a table: a row a step, the fix under a failed one, the totals last", async () => {
    const run = await livecmd(["doctor", ...fixtureCommand("failingRead")]);
    assert.equal(run.code, 1);
    const lines = run.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^step +era +status +detail$/);
    const failedRow = lines.findIndex((line) =>
      /^resources\/read +2026-07-28 +fail +docs:\/\/reports\/quarterly fails/.test(line),
    );
    assert.ok(failedRow > 0, run.stdout);
    assert.match(lines[failedRow + 1]!, /^ +fix: make resources\/read serve every uri/);
    assert.equal(lines[failedRow + 1]!.indexOf("fix:"), lines[0]!.indexOf("detail"));
    assert.match(lines.at(-1)!, /failingRead\.ts: 20 steps, 18 ok, 0 warn, 2 fail$/);
  });

  it("finds no fault in livecmd's own example app on stdio (exit 0)", async () => {
    const { run, report } = await doctorJson(
      ["--", process.execPath, "packages/livecmd/bin/livecmd.js", "serve"],
      FRESH_DATABASE,
    );
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(failed(report.steps), []);
    const toolSteps = report.steps
      .filter((step) => step.step === "tool annotations" || step.step === "confirmations")
      .map((step) => `${step.era} ${step.step} ${step.status}: ${step.detail}`);
    assert.deepEqual(
      toolSteps,
      ERAS.flatMap((era) => [
        `${era} tool annotations ok: every tool says whether it only reads (14): 10 read-only, 4 writes`,
        `${era} confirmations ok: a host asks the person before 1 of 14 tools (destructiveHint): customers_delete`,
      ]),
    );
    assert.deepEqual(
      report.eras.map(({ era, served }) => [era, served]),
      ERAS.map((era) => [era, true]),
    );
  });

  it("follows every cursor of a paginated server and does the round-trip arithmetic", async () => {
    const { run, report } = await doctorJson(
      ["--", process.execPath, "packages/livecmd/bin/livecmd.js", "serve", "--page-size", "2"],
      FRESH_DATABASE,
    );
    assert.equal(run.code, 0, run.stdout);
    const templates = report.steps.filter((step) => step.step === "resources/templates/list");
    assert.deepEqual(
      templates.map((step) => step.status),
      ["ok", "ok"],
    );
    for (const { detail } of templates)
      assert.match(
        detail,
        /^5 entries on 3 pages of up to 2: 3 round trips × [\d.]+ m?s = [\d.]+ m?s before a host has the whole listing$/,
      );
  });

  describe("over Streamable HTTP", () => {
    let server: ReturnType<typeof spawn>;
    let url: string;

    before(async () => {
      ({ server, url } = await servedOverHttp());
    });

    after(() => {
      server.kill("SIGTERM");
    });

    it("finds no fault in the example app served at its URL, on both eras (exit 0)", async () => {
      const { run, report } = await doctorJson([url]);
      assert.equal(run.code, 0, run.stdout);
      assert.deepEqual(failed(report.steps), []);
      assert.equal(report.target, url);
      assert.deepEqual(
        report.eras.map(({ era, served }) => [era, served]),
        ERAS.map((era) => [era, true]),
      );
    });
  });

  describe("a server that needs a token", () => {
    const TOKEN = "doctor-secret-0123456";
    let server: ReturnType<typeof spawn>;
    let url: string;
    let tokenFile: string;

    before(async () => {
      const tokens = tokensFile(`${TOKEN} # doctor\n`);
      tokenFile = path.join(path.dirname(tokens), "token.txt");
      writeFileSync(tokenFile, `${TOKEN}\n`);
      ({ server, url } = await servedOverHttp(["--tokens", tokens]));
    });

    after(() => {
      server.kill("SIGTERM");
    });

    it("without a token: one line naming the 401 and its challenge, and how to pass one (exit 2)", async () => {
      const run = await livecmd(["doctor", url]);
      assert.equal(run.code, 2, run.stdout);
      assert.match(
        run.stderr,
        /^livecmd: http:\/\/127\.0\.0\.1:\d+\/mcp: the server answered 401 Unauthorized: it needs a token \(WWW-Authenticate: Bearer[^)]*\); pass one: --header 'Authorization: Bearer <token>' or --token-file FILE\n$/,
      );
    });

    it("with a token it does not know: the token given was refused (exit 2)", async () => {
      const run = await livecmd([
        "doctor",
        url,
        "--header",
        "Authorization: Bearer not-the-token-0000000",
      ]);
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, /the server answered 401 Unauthorized: the token given was refused/);
      assert.doesNotMatch(run.stderr, /pass one/);
    });

    for (const [way, args] of [
      ["--header", () => ["--header", `Authorization: Bearer ${TOKEN}`]],
      ["--token-file", () => ["--token-file", tokenFile]],
    ] as const)
      it(`with the token by ${way}: every step of both eras passes (exit 0)`, async () => {
        const { run, report } = await doctorJson([url, ...args()]);
        assert.equal(run.code, 0, run.stdout);
        assert.deepEqual(failed(report.steps), []);
        assert.deepEqual(
          report.eras.map(({ era, served }) => [era, served]),
          ERAS.map((era) => [era, true]),
        );
      });
  });

  describe("bad input is one line on stderr and exit 2", () => {
    let closedPort: number;

    before(async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
      closedPort = (probe.address() as { port: number }).port;
      await new Promise((resolve) => probe.close(resolve));
    });

    const cases: { rule: string; args: () => string[]; message: RegExp }[] = [
      {
        rule: "no server named",
        args: () => [],
        message: /^livecmd: name the server: livecmd doctor http/,
      },
      {
        rule: "a URL and a command both",
        args: () => ["http://127.0.0.1:3000/mcp", "--", "node", "server.js"],
        message: /^livecmd: give either a URL or a command after --, not both/,
      },
      {
        rule: "a URL that is not http(s)",
        args: () => ["ftp://example.test/mcp"],
        message: /is not an http\(s\) URL; for a server on stdio/,
      },
      {
        rule: "an unreachable URL",
        args: () => [`http://127.0.0.1:${closedPort}/mcp`],
        message: /^livecmd: cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: connect ECONNREFUSED/,
      },
      {
        rule: "a command that cannot start",
        args: () => ["--", "livecmd-no-such-command"],
        message:
          /^livecmd: cannot start `livecmd-no-such-command`: spawn livecmd-no-such-command ENOENT/,
      },
      {
        rule: "a command that exits without answering",
        args: () => [
          "--",
          process.execPath,
          "--eval",
          "process.stderr.write('Error: no config file\\n'); process.exit(3)",
        ],
        message:
          /^livecmd: no MCP server answered at .*: 2026-07-28: .*; 2025: .*the server's stderr says: Error: no config file$/,
      },
      {
        rule: "a header that is not 'Name: value'",
        args: () => ["http://127.0.0.1:3000/mcp", "--header", "Bearer abc"],
        message: /^livecmd: --header "Bearer abc" is not a header; write it as 'Name: value'/,
      },
      {
        rule: "a token file that is not there",
        args: () => ["http://127.0.0.1:3000/mcp", "--token-file", "no-such-token.txt"],
        message: /^livecmd: --token-file no-such-token.txt: ENOENT/,
      },
      {
        rule: "a header for a stdio server",
        args: () => ["--header", "X-A: b", "--", "node", "server.js"],
        message: /^livecmd: --header and --token-file are for a server's URL/,
      },
      {
        rule: "a timeout that is not positive",
        args: () => ["--timeout", "0", "http://127.0.0.1:3000/mcp"],
        message: /^livecmd: --timeout must be a positive number of seconds, got 0$/,
      },
    ];
    for (const { rule, args, message } of cases) {
      it(rule, async () => {
        const run = await livecmd(["doctor", ...args()]);
        assert.equal(run.code, 2);
        assert.equal(run.stdout, "");
        assert.match(run.stderr.trimEnd(), message);
        assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
      });
    }
  });
});
