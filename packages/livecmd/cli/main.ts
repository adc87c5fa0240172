import { inputFailure } from "./inputFailure.ts";
import { directServeArguments } from "./serveArguments.ts";
import { runServe } from "./serveCommand.ts";

// A host starts `livecmd serve` at every session and waits for its `initialize` answer: serve's
// common form runs without yargs and the other commands; anything else goes through yargs.
const serveArguments = directServeArguments(process.argv.slice(2));
if (serveArguments)
  await runServe(serveArguments).catch((error: Error) => inputFailure(null, error));
else await import("./commandLine.ts");
