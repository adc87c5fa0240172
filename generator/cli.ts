import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { serveCommand } from "../runtime/server/serveCommand.ts";

const log = (text: string) => process.stdout.write(`${text}\n`);
const appOption = {
  type: "string",
  default: "example/app.ts",
  describe: "The app module: the file that calls defineApp(...)",
} as const;

await yargs(hideBin(process.argv))
  .scriptName("livecmd")
  .command(
    "codegen",
    "Generate the template catalog, URI parsers and URI helpers from the app's commands",
    (command) =>
      command
        .option("app", appOption)
        .option("out", { type: "string", default: "generated", describe: "Folder the generated files go to" })
        .option("check", { type: "boolean", describe: "Write nothing; exit 1 if a file is stale, missing or extra (with a diff)" })
        .option("watch", { type: "boolean", describe: "Regenerate whenever a source file changes" })
        .conflicts("check", "watch")
        .epilog("Exit codes: 0 up to date or written; 1 --check found stale, missing or extra files; 2 the app's source has errors (printed with file:line:col)."),
    async (argv) => {
      const options = { app: argv.app, out: argv.out, check: argv.check === true, cwd: process.cwd(), log };
      // The generator (ts-morph) loads only for the commands that use it: `serve` starts fast.
      if (argv.watch) await (await import("./output/watchCodegen.ts")).watchCodegen(options);
      else process.exitCode = await (await import("./runCodegen.ts")).runCodegen(options);
    },
  )
  .command(
    "inspect",
    "Print every command: live, confirm, granted, its resource and template, or why it has none",
    (command) => command.option("app", appOption),
    async (argv) => {
      const { runInspect } = await import("./inspect/runInspect.ts");
      process.exitCode = await runInspect({ app: argv.app, cwd: process.cwd(), log });
    },
  )
  .command(serveCommand)
  .demandCommand(1, "Name a command: codegen, inspect or serve. See livecmd --help.")
  .strict()
  .help()
  .parseAsync();
