import { readFileSync } from "node:fs";
import type { CommandModule } from "yargs";
import { resolveFromProject } from "./fromProject.ts";
import { InputError } from "./inputError.ts";
import { livecmdManifest } from "./livecmdPackage.ts";
import { addCommand, packageManagerOf } from "./packageManager.ts";
import { shellLine } from "./shellLine.ts";

/**
 * livecmd's dev tool: the generator and the commands that run it, with ts-morph and prettier as
 * its own dependencies, so a production install (`npm ci --omit=dev`) leaves them out. The `livecmd` binary runs its commands when the project has it.
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
  const install = shellLine(
    addCommand(packageManagerOf(cwd), "saveDev", [`${KIT}@${livecmdVersion}`]),
  );
  const kit = installedKit(cwd);
  if (kit === undefined)
    return standIns(
      "not installed here",
      `is in ${KIT}, livecmd's dev tool, which is not installed: ${install}`,
    );
  if (kit.version !== livecmdVersion)
    return standIns(
      `${kit.version} here, livecmd is ${livecmdVersion}`,
      `is in ${KIT} ${kit.version}, which does not match livecmd ${livecmdVersion} (their versions move together): ${install}`,
    );
  const { commands } = (await import(kit.entry)) as {
    commands: CommandModule[];
  };
  return commands;
}

function installedKit(cwd: string): { entry: string; version: string } | undefined {
  let manifest: string;
  try {
    manifest = resolveFromProject(`${KIT}/package.json`, cwd);
  } catch {
    return undefined;
  }
  const { version } = JSON.parse(readFileSync(new URL(manifest), "utf8")) as { version: string };
  return { entry: resolveFromProject(`${KIT}/cli`, cwd), version };
}

/** Commands that take any flags and say `why` they cannot run (exit 2); `state`: the kit's, for the help. */
function standIns(state: string, why: string): CommandModule[] {
  return KIT_COMMANDS.map((name) => ({
    command: name,
    describe: `(${KIT}, ${state})`,
    builder: (argv) => argv.strict(false),
    // Rejected, not thrown: yargs hands a handler's rejection to the CLI's one-line failure.
    handler: () => Promise.reject(new InputError(`livecmd ${name} ${why}`)),
  }));
}
