import { InputError } from "./inputError.ts";

const INPUT_ERROR = 2;

/**
 * How the CLI fails: a mistyped flag or a bad input (`InputError`) is one line on stderr and
 * exit 2; anything else is a bug, thrown with its stack. yargs' `message` is its own (an
 * unknown flag, a missing command).
 */
export function inputFailure(message: string | null, error: Error | undefined): never {
  if (error && !(error instanceof InputError)) throw error;
  const text = error ? error.message.replace(/^livecmd: /, "") : `${message}; see livecmd --help`;
  process.stderr.write(`livecmd: ${text}\n`);
  process.exit(INPUT_ERROR);
}
