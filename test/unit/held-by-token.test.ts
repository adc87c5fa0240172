import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { HeldByToken } from "../../packages/livecmd/runtime/server/auth/heldByToken.ts";
import { staticTokens } from "../../packages/livecmd/runtime/server/index.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const TOKEN = "held-secret-0123";
/** Another principal's token: a tokens file that lists none is refused. */
const BYSTANDER = "bystander-secret-0123";
const RESOURCE = new URL("http://127.0.0.1/mcp");

/**
 * What a listen or a waiting watch call holds under its token ends when the token no longer
 * verifies, whenever the token was revoked: before the hold was taken (between the request's
 * verification and the open watch), or after.
 */
const cases = [
  { rule: "a token revoked before the hold was taken ends it at once", revokeBefore: true },
  { rule: "a token revoked while held ends it at once", revokeBefore: false },
];

for (const { rule, revokeBefore } of cases) {
  test(rule, async () => {
    const file = tokensFile(`${TOKEN} # held\n`);
    const auth = staticTokens(file);
    const held = new HeldByToken(auth, RESOURCE, (error) => assert.fail(error));
    const info = await auth.verify(TOKEN, RESOURCE);
    const revoke = () => {
      writeFileSync(file, `${BYSTANDER} # bystander\n`);
      auth.reload();
    };
    if (revokeBefore) revoke();
    let ended = false;
    held.hold(info, () => (ended = true));
    if (!revokeBefore) revoke();
    await sleep(50);
    held.close();
    assert.equal(ended, true);
  });
}

test("a token that still verifies is held, not ended, when the hold is taken", async () => {
  const file = tokensFile(`${TOKEN} # held\n`);
  const auth = staticTokens(file);
  const held = new HeldByToken(auth, RESOURCE, (error) => assert.fail(error));
  let ended = false;
  held.hold(await auth.verify(TOKEN, RESOURCE), () => (ended = true));
  await sleep(50);
  held.close();
  assert.equal(ended, false);
});
