import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { CommandModule } from "yargs";
import { InputError } from "./inputError.ts";
import { livecmdManifest } from "./livecmdPackage.ts";

/**
 * livecmd's dev tool: the generator and the commands that run it, with ts-morph, prettier and
 * handlebars as its own dependencies, so a production install (`npm ci --omit=dev`) leaves them
 * out. The `livecmd` binary runs its commands when the project has it.
 */
export const KIT = "livecmd-kit";

/** The commands the dev tool holds, in the order `livecmd --help` lists them. */
const KIT_COMMANDS = ["init", "codegen", "inspect"] as const;

/**
 * The dev tool's commands as the project in `cwd` has it installed, found from the project (a
 * strict layout hides it from livecmd's own folder). When it is missing or of another version
 * than this livecmd, each command is a stand-in that says, in one line, what to install.
 */
export async function kitCommands(cwd: string): Promise<CommandModule[]> {
  const livecmdVersion = livecmdManifest().version;
  const install = `npm install --save-dev ${KIT}@${livecmdVersion}`;
  const kit = installedKit(cwd);
  if (kit === undefined)
    return standIns(`is in ${KIT}, livecmd's dev tool, which is not installed: ${install}`);
  if (kit.version !== livecmdVersion)
    return standIns(
      `is in ${KIT} ${kit.version}, which does not match livecmd ${livecmdVersion} (their versions move together): ${install}`,
    );
  const { commands } = (await import(pathToFileURL(kit.entry).href)) as {
    commands: CommandModule[];
  };
  return commands;
}

function installedKit(cwd: string): { entry: string; version: string } | undefined {
  const require = createRequire(path.join(cwd, "package.json"));
  let manifest: string;
  try {
    manifest = require.resolve(`${KIT}/package.json`);
  } catch {
    return undefined;
  }
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  return { entry: require.resolve(`${KIT}/cli`), version };
}

/** Commands that take any flags and say `why` they cannot run (exit 2). */
function standIns(why: string): CommandModule[] {
  return KIT_COMMANDS.map((name) => ({
    command: name,
    describe: `(${KIT}, not installed here)`,
    builder: (argv) => argv.strict(false),
    handler: () => {
      throw new InputError(`livecmd ${name} ${why}`);
    },
  }));
}
