import type { CommandModule } from "yargs";
import type { App } from "livecmd";
import { loadApp } from "livecmd/cli";
import { appPaths } from "./appPaths.ts";
import { appFlag, tsconfigFlag } from "./codegenCommand.ts";

interface InspectArguments {
  app?: string;
  tsconfig?: string;
  reads?: string[];
  cost?: boolean;
}

/** `livecmd inspect`: every command, and what codegen makes of it; with `--reads`, what reading URIs depends on. */
export const inspectCommand: CommandModule<object, InspectArguments> = {
  command: "inspect",
  describe:
    "Print every command: live, confirm, granted, its resource and template, or why it has none",
  builder: (argv) =>
    argv
      .option("app", appFlag)
      .option("tsconfig", tsconfigFlag)
      .option("reads", {
        type: "string",
        array: true,
        describe:
          "Read URI once on the app's database and print what watching it depends on: the rows (by key) or whole tables it reads, and whether it reads ctx.auth; repeatable",
      })
      .option("cost", {
        type: "boolean",
        describe:
          "Also read each template once on the app's database, with the examples its docs give, and print what watching it costs: the keys a write must touch to re-run it, or the tables it reads whole and why",
      })
      .example("$0 inspect --cost", "")
      .example("$0 inspect --reads app://customers_show/1", ""),
  handler: async (argv) => {
    const cwd = process.cwd();
    const { app, tsconfig } = await appPaths(argv, cwd);
    const log = (text: string) => process.stdout.write(`${text}\n`);
    if (argv.reads) {
      const { inspectReads } = await import("./inspectReads.ts");
      const reads = argv.reads;
      await onTheApp({ file: app, cwd }, (loaded) => inspectReads(loaded, reads, log));
      return;
    }
    const { runInspect } = await import("../generator/inspect/runInspect.ts");
    process.exitCode = await runInspect({ app, tsconfig, cwd, log });
    if (!argv.cost || process.exitCode !== 0) return;
    const { inspectCost } = await import("./inspectCost.ts");
    // The table above read the TypeScript source (a compiled app is refused there): the same
    // module is run, so a missing tsx is not answered by offering the compiled one.
    await onTheApp({ file: app, cwd, compiledWillDo: false }, (loaded) => inspectCost(loaded, log));
  },
};

/**
 * Runs `inspect` on the loaded app and closes it, then ends the process: what is left open is
 * the app's own (a pg.Pool's idle clients would hold the process for their timeout, 10 s).
 */
async function onTheApp(
  { file, cwd, compiledWillDo }: { file: string; cwd: string; compiledWillDo?: boolean },
  inspect: (app: App) => Promise<void>,
) {
  const loaded = await loadApp(file, cwd, { compiledWillDo });
  try {
    await inspect(loaded);
  } finally {
    await loaded.close();
  }
  process.exit(process.exitCode ?? 0);
}
