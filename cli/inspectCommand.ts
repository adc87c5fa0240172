import type { CommandModule } from "yargs";
import { appPaths } from "./appPaths.ts";
import { appFlag, tsconfigFlag } from "./codegenCommand.ts";
import { GENERATOR_PACKAGES, withDevPackages } from "./devPackages.ts";

interface InspectArguments {
  app?: string;
  tsconfig?: string;
}

/** `livecmd inspect`: every command, and what codegen makes of it. */
export const inspectCommand: CommandModule<object, InspectArguments> = {
  command: "inspect",
  describe:
    "Print every command: live, confirm, granted, its resource and template, or why it has none",
  builder: (argv) => argv.option("app", appFlag).option("tsconfig", tsconfigFlag),
  handler: async (argv) => {
    const cwd = process.cwd();
    const { app, tsconfig } = await appPaths(argv, cwd);
    const log = (text: string) => process.stdout.write(`${text}\n`);
    await withDevPackages("livecmd inspect", GENERATOR_PACKAGES, async () => {
      const { runInspect } = await import("../generator/inspect/runInspect.ts");
      process.exitCode = await runInspect({ app, tsconfig, cwd, log });
    });
  },
};
