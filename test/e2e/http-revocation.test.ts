import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  initialize,
  openGetStream,
  openListen,
  sessionRequest,
  untilEnd,
} from "../helpers/rawStreams.ts";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";

const READER = "reader-secret-0123";
const WRITER = "writer-secret-0123";

describe("a token removed from the tokens file (SIGHUP)", () => {
  let served: ServedCli;
  let file: string;
  before(async () => {
    file = path.join(mkdtempSync(path.join(tmpdir(), "livecmd-revoke-")), "tokens.txt");
    writeFileSync(
      file,
      `${READER} customers:read # reader\n${WRITER} customers:read customers:write # writer\n`,
    );
    served = await servedCli(["--tokens", file]);
  });
  after(() => served.close());

  it(
    "ends that principal's listens, GET streams and sessions, and no one else's",
    { timeout: 20_000 },
    async () => {
      const listen = await openListen(served.url, ["app://customers_show/1"], READER);
      assert.equal(listen.status, 200);
      const readerSession = (await initialize(served.url, READER)).session!;
      const stream = await openGetStream(served.url, readerSession, READER);
      assert.equal(stream.status, 200);
      const writerSession = (await initialize(served.url, WRITER)).session!;

      writeFileSync(file, `${WRITER} customers:read customers:write # writer\n`);
      served.child.kill("SIGHUP");
      await served.stderrLine(/re-read .*: 1 tokens/);
      await Promise.all([untilEnd(listen), untilEnd(stream)]);

      const again = await sessionRequest(
        served.url,
        writerSession,
        { id: 2, method: "tools/list" },
        WRITER,
      );
      assert.equal(again.status, 200, "the writer's session is still served");
      await again.text();
      const refused = await sessionRequest(
        served.url,
        readerSession,
        { id: 2, method: "tools/list" },
        READER,
      );
      assert.equal(refused.status, 401);
      await refused.text();
    },
  );
});
