import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { root, run, type CliRun } from "./cli.ts";

/** A project of an adopter's, in a fresh folder outside the repository. */
export interface ScratchProject {
  readonly dir: string;
  /** `npx livecmd ...args` in the project: the CLI as the project's node_modules/.bin has it. */
  livecmd(args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun>;
  write(file: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

/** A one-command app, as `livecmd init` or an adopter would start one. */
export const TICKETS_APP = `import { command, defineApp, type Int } from "livecmd";
import catalog from "./generated/catalog.json" with { type: "json" };
import { templates } from "./generated/templates.js";

/** One ticket by id. */
export const tickets_show = command({ live: true }, (ctx, id: Int) => ({ id, title: "Printer on fire" }));

export default defineApp({
  name: "desk",
  commands: { tickets_show },
  agent: { grant: [tickets_show] },
  generated: { catalog, templates },
});
`;

/**
 * A project with `files` (path -> text; a package.json of type module unless given) and, in its
 * node_modules, livecmd, livecmd-kit and the packages `linked` names, linked from this repository
 * (livecmd's packages through their package.json exports, so the compiled dist/, as an installed
 * copy is used).
 */
export async function scratchProject(
  files: Record<string, string>,
  linked: string[] = [],
): Promise<ScratchProject> {
  const dir = await mkdtemp(path.join(tmpdir(), "livecmd-project-"));
  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  };
  await write(
    "package.json",
    JSON.stringify({ name: "helpdesk", version: "3.2.1", type: "module" }, null, 2),
  );
  for (const [file, text] of Object.entries(files)) await write(file, text);
  await mkdir(path.join(dir, "node_modules"), { recursive: true });
  for (const name of ["livecmd", "livecmd-kit"])
    await symlink(path.join(root, "packages", name), path.join(dir, "node_modules", name), "dir");
  for (const name of linked) {
    await mkdir(path.dirname(path.join(dir, "node_modules", name)), { recursive: true });
    await symlink(
      path.join(root, "node_modules", name),
      path.join(dir, "node_modules", name),
      "dir",
    );
  }
  return {
    dir,
    livecmd: (args, env = {}) =>
      run(process.execPath, [path.join(dir, "node_modules/livecmd/bin/livecmd.js"), ...args], {
        cwd: dir,
        env: { ...process.env, ...env },
        timeoutMs: 120_000,
      }),
    write,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
