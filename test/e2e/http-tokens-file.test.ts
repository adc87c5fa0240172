import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { root, run } from "../helpers/cli.ts";
import { initialize } from "../helpers/rawStreams.ts";
import { CLI, servedCli } from "../helpers/servedCli.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const GOOD = "reader-secret-0123 customers:read # reader\n";

describe("the tokens file", () => {
  const refusals: [rule: string, content: string | Buffer, says: RegExp][] = [
    [
      "a token with # inside (it is not cut there)",
      `${GOOD}abcdefghijklmnop#qrstuvwx customers:read # cut\n`,
      /tokens\.txt:2: the token has a character a bearer token cannot carry \(U\+0023 at character 17\): letters, digits and - \. _ ~ \+ \/ \(RFC 6750 b64token\), then = padding$/,
    ],
    [
      "a file of binary junk",
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x01]),
      /tokens\.txt:1: the token has a character a bearer token cannot carry \(U\+FFFD at character 1\)/,
    ],
    [
      "a control character",
      `${GOOD}abcdefghijklmnopqr\u0001 x\n`,
      /tokens\.txt:2: a control character \(U\+0001\) at column 19$/,
    ],
    [
      "a token shorter than 16 characters",
      `\n\nshort-secret customers:read\n`,
      /tokens\.txt:3: the token has 12 characters, fewer than 16; make one with `openssl rand -hex 16`$/,
    ],
  ];
  for (const [rule, content, says] of refusals) {
    it(`refuses ${rule} at start: exit 2 and one line naming the line`, async () => {
      const file = tokensFile(content);
      const started = await run(
        process.execPath,
        [...CLI, "serve", "--app", "example/app.ts", "--http", "0", "--tokens", file],
        { cwd: root, env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:" } },
      );
      assert.equal(started.code, 2, started.stderr);
      assert.equal(started.stderr.trim().split("\n").length, 1, started.stderr);
      assert.match(started.stderr.trim(), says);
      assert.ok(!started.stderr.includes("abcdefghijklmnop"), "the token is quoted");
    });
  }

  it("keeps the tokens read before when a SIGHUP finds a line that does not parse", async () => {
    const file = tokensFile(GOOD);
    const served = await servedCli(["--tokens", file]);
    try {
      writeFileSync(file, `${GOOD}abcdefghijklmnop#qrstuvwx\n`);
      served.child.kill("SIGHUP");
      const line = await served.stderrLine(/tokens\.txt:2/);
      assert.match(
        line,
        /^livecmd: .*tokens\.txt:2: the token has a character .*; the tokens read before stay in force$/,
      );
      // One line for the problem (the start said where its skills come from before it).
      const problems = served
        .stderr()
        .split("\n")
        .filter((each) => each.includes("tokens.txt"));
      assert.equal(problems.length, 1, served.stderr());
      assert.equal((await initialize(served.url, "reader-secret-0123")).status, 200);
      assert.equal((await initialize(served.url, "abcdefghijklmnop")).status, 401);
    } finally {
      await served.close();
    }
  });
});
