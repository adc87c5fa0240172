import type { CommandModule } from "yargs";
import { appPaths } from "./appPaths.ts";
import { DEFAULT_APP_MODULES } from "livecmd/cli";

interface CodegenArguments {
  app?: string;
  out?: string;
  tsconfig?: string;
  check?: boolean;
  watch?: boolean;
  force?: boolean;
}

export const appFlag = {
  type: "string",
  describe: `The app module, the TypeScript file that calls defineApp(...) (default: ${DEFAULT_APP_MODULES.join(", then ")})`,
} as const;
export const tsconfigFlag = {
  type: "string",
  describe: "The tsconfig to read the app with (default: the nearest tsconfig.json above the app)",
} as const;

const log = (text: string) => process.stdout.write(`${text}\n`);

/** `livecmd codegen`: the catalog, URI parsers and URI builders from the app's commands. */
export const codegenCommand: CommandModule<object, CodegenArguments> = {
  command: "codegen",
  describe: "Generate the template catalog, URI parsers and URI helpers from the app's commands",
  builder: (argv) =>
    argv
      .option("app", appFlag)
      .option("out", {
        type: "string",
        describe:
          "Folder the generated files go to, codegen's own (default: generated/ beside the app module)",
      })
      .option("tsconfig", tsconfigFlag)
      .option("check", {
        type: "boolean",
        describe: "Write nothing; exit 1 if a file is stale, missing or extra (with a diff)",
      })
      .option("watch", { type: "boolean", describe: "Regenerate whenever a source file changes" })
      .option("force", {
        type: "boolean",
        describe:
          "Write although the folder holds files codegen did not write (they are left untouched)",
      })
      .conflicts("check", "watch")
      .epilog(
        "Exit codes: 0 up to date or written; 1 --check found stale, missing or extra files; 2 bad input (the app's source has errors, printed with file:line:col, or a path or setting is wrong).",
      ),
  handler: async (argv) => {
    const cwd = process.cwd();
    const paths = await appPaths(argv, cwd);
    const options = { ...paths, check: argv.check === true, force: argv.force === true, cwd, log };
    // The generator (ts-morph, prettier) loads only when it runs: `livecmd --help` starts fast.
    process.exitCode = argv.watch
      ? await (await import("../generator/watchCodegen.ts")).watchCodegen(options)
      : await (await import("../generator/runCodegen.ts")).runCodegen(options);
  },
};
