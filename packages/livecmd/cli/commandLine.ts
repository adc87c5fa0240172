import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { dbCommand } from "./dbCommand.ts";
import { doctorCommand } from "./doctorCommand.ts";
import { InputError } from "./inputError.ts";
import { kitCommands } from "./kitCommands.ts";
import { livecmdManifest } from "./livecmdPackage.ts";
import { serveCommand } from "./serveCommand.ts";

const INPUT_ERROR = 2;

await yargs(hideBin(process.argv))
  .scriptName("livecmd")
  // `livecmd doctor -- <command>` takes the command's words verbatim ("--http 0" stays "0").
  .parserConfiguration({ "populate--": true, "parse-positional-numbers": false })
  .command(await kitCommands(process.cwd()))
  .command(serveCommand)
  .command(doctorCommand)
  .command(dbCommand)
  .demandCommand(1, "name a command: init, codegen, inspect, serve, doctor or db")
  .strict()
  .version(livecmdManifest().version)
  .help()
  .epilog(
    'Settings: livecmd.config.json, livecmd.config.ts or a "livecmd" key in package.json ({ app, out, tsconfig }); flags win over them.',
  )
  .fail((message: string | null, error: Error | undefined) => {
    // A mistyped flag or a bad input is one line and exit 2; anything else is a bug, with its stack.
    if (error && !(error instanceof InputError)) throw error;
    const text = error ? error.message.replace(/^livecmd: /, "") : `${message}; see livecmd --help`;
    process.stderr.write(`livecmd: ${text}\n`);
    process.exit(INPUT_ERROR);
  })
  .parseAsync();
