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

/** The packed tarballs of livecmd's two packages: the runtime, and the dev tool. */
export interface PackedLivecmd {
  livecmd: string;
  kit: string;
}

/**
 * `npm pack` of both packages into `folder`. dist/ is built already (pretest), and packing must
 * not rebuild it under the feet of tests running beside.
 */
export async function packLivecmd(folder: string): Promise<PackedLivecmd> {
  const packed = await run(
    "npm",
    [
      "pack",
      "--ignore-scripts",
      "--json",
      "--pack-destination",
      folder,
      "--workspace",
      "packages/livecmd",
      "--workspace",
      "packages/livecmd-kit",
    ],
    { cwd: root, env: projectEnv() },
  );
  assert.equal(packed.code, 0, packed.stderr);
  const tarballs = new Map(
    (JSON.parse(packed.stdout) as { name: string; filename: string }[]).map(
      ({ name, filename }) => [name, path.join(folder, filename)],
    ),
  );
  return { livecmd: tarballs.get("livecmd")!, kit: tarballs.get("livecmd-kit")! };
}
