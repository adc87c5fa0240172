import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { RefusalLog } from "../../packages/livecmd/runtime/server/log/refusalLog.ts";
import { serverLog } from "../../packages/livecmd/runtime/server/log/serverLog.ts";

/** A RefusalLog of a `windowMs` window writing JSON lines into `lines`, and the server's errors into `errors`. */
function refusalLog(windowMs: number) {
  const lines: { level: string; msg: string }[] = [];
  const errors: string[] = [];
  const log = serverLog("json", { write: (line: string) => void lines.push(JSON.parse(line)) });
  const onerror = new RefusalLog(log, windowMs).or((error) => void errors.push(error.message));
  return { lines, errors, onerror };
}

const MISMATCH =
  "Rejected inbound request (header-body-mismatch): Bad Request: the request headers and body disagree";

describe("the refusals of a client's requests, logged apart from the server's errors", () => {
  it("the first of a kind is a warn line; the rest of its window are one line counting them", async () => {
    const { lines, errors, onerror } = refusalLog(50);
    for (let sent = 0; sent < 4; sent++) onerror(new Error(MISMATCH));
    onerror(new Error("Unsupported Media Type: Content-Type must be application/json"));
    onerror(new Error("the database went away"));
    assert.deepEqual(errors, ["the database went away"]);
    assert.deepEqual(lines, [
      {
        ...lines[0],
        level: "warn",
        msg: "refused a client's request (header-body-mismatch): Bad Request: the request headers and body disagree",
      },
      {
        ...lines[1],
        level: "warn",
        msg: "refused a client's request (unsupported-media-type): Unsupported Media Type: Content-Type must be application/json",
      },
    ]);
    await sleep(120);
    assert.deepEqual(
      lines.slice(2).map(({ level, msg }) => ({ level, msg })),
      [
        {
          level: "warn",
          msg: "refused 3 more client requests (header-body-mismatch) in the last 0.05 s",
        },
      ],
    );
    // A new window: its first is told again.
    onerror(new Error(MISMATCH));
    assert.equal(lines.length, 4);
    assert.match(lines[3]!.msg, /^refused a client's request \(header-body-mismatch\)/);
  });
});
