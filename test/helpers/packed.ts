import assert from "node:assert/strict";
import path from "node:path";
import { root, run } from "./cli.ts";

/** The environment of a command run in an adopter's project: none of `npm test`'s own npm settings. */
export function projectEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== "NODE_OPTIONS"),
  );
  return { ...env, ...extra };
}

/**
 * `npm pack` of this repository into `folder`; returns the tarball's path. dist/ is built
 * already (pretest), and packing must not rebuild it under the feet of tests running beside.
 */
export async function packLivecmd(folder: string): Promise<string> {
  const packed = await run(
    "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", folder],
    { cwd: root, env: projectEnv() },
  );
  assert.equal(packed.code, 0, packed.stderr);
  return path.join(folder, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}
