import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { dbCommand } from "./dbCommand.ts";
import { doctorCommand } from "./doctorCommand.ts";
import { inputFailure } from "./inputFailure.ts";
import { kitCommands } from "./kitCommands.ts";
import { livecmdManifest } from "./livecmdPackage.ts";
import { serveCommand } from "./serveCommand.ts";

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
  .fail(inputFailure)
  .parseAsync();
