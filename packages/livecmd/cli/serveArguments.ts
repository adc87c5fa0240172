import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Options } from "yargs";
import { checkServeArguments, SERVE_OPTIONS, type ServeArguments } from "./serveCommand.ts";

type Flag = keyof typeof SERVE_OPTIONS;

/** `SERVE_OPTIONS` as `node:util`'s parseArgs reads them: numbers come as text, converted after. */
const PARSE_OPTIONS: NonNullable<ParseArgsConfig["options"]> = Object.fromEntries(
  Object.entries(SERVE_OPTIONS).map(([flag, option]: [string, Options]) => [
    flag,
    { type: option.type === "boolean" ? "boolean" : "string", multiple: option.array === true },
  ]),
);

/**
 * `livecmd serve`'s flags when `args` (the words after `livecmd`) are serve's common form,
 * each flag of `SERVE_OPTIONS` given once as `--flag value`, `--flag=value` or a bare boolean,
 * valid together; otherwise undefined, and yargs parses them, with its help, its version and
 * its messages. A host starts the server at every session: this path answers `initialize`
 * without loading yargs and the other commands. The arguments it returns are the ones yargs
 * gives the handler (test/unit/serve-arguments.test.ts holds the two to that).
 */
export function directServeArguments(args: readonly string[]): ServeArguments | undefined {
  if (args[0] !== "serve") return undefined;
  let parsed;
  try {
    parsed = parseArgs({ args: args.slice(1), options: PARSE_OPTIONS, strict: true, tokens: true });
  } catch {
    return undefined;
  }
  const given = parsed.tokens.flatMap((token) => (token.kind === "option" ? [token.name] : []));
  const repeated = given.some(
    (flag, at) => given.indexOf(flag) !== at && !PARSE_OPTIONS[flag]!.multiple,
  );
  if (repeated) return undefined;
  const values: Record<string, unknown> = {};
  for (const [flag, option] of Object.entries(SERVE_OPTIONS) as [Flag, Options][]) {
    const value = parsed.values[flag] ?? option.default;
    if (value === undefined) continue;
    if (option.choices && !option.choices.includes(value)) return undefined;
    values[flag] = option.type === "number" ? Number(value) : value;
  }
  const serveArguments = values as unknown as ServeArguments;
  try {
    checkServeArguments(serveArguments);
  } catch {
    return undefined;
  }
  return serveArguments;
}
