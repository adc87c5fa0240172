import type { CommandModule } from "yargs";
import { withPackage } from "./devPackages.ts";
import { requestHeaders } from "./doctor/credentials.ts";
import { parseTarget } from "./doctor/target.ts";
import { InputError } from "./inputError.ts";

interface DoctorArguments {
  url?: string;
  "--"?: (string | number)[];
  json?: boolean;
  timeout: number;
  header?: string[];
  "token-file"?: string;
}

const DEFAULT_TIMEOUT_S = 10;

/** `livecmd doctor`: a host's resource discovery, walked against any MCP server. */
export const doctorCommand: CommandModule<object, DoctorArguments> = {
  command: "doctor [url]",
  describe:
    "Walk a host's resource discovery against any MCP server, on both protocol eras: capabilities, listings, URIs and templates, metadata, reads, subscriptions",
  builder: (argv) =>
    argv
      .positional("url", {
        type: "string",
        describe:
          "The server's Streamable HTTP endpoint; or give a stdio server's command after --",
      })
      .option("json", {
        type: "boolean",
        describe: "Print the report as JSON (for CI) instead of a table",
      })
      .option("header", {
        type: "string",
        array: true,
        describe: "A header sent with every request to the URL, 'Name: value' (repeatable)",
      })
      .option("token-file", {
        type: "string",
        describe: "A file whose first line is a bearer token, sent as Authorization: Bearer",
      })
      .option("timeout", {
        type: "number",
        default: DEFAULT_TIMEOUT_S,
        describe: "Seconds to wait for each answer",
      })
      .check((args) => {
        if (!(args.timeout > 0))
          throw new InputError(
            `--timeout must be a positive number of seconds, got ${args.timeout}`,
          );
        return true;
      })
      .example("$0 doctor http://127.0.0.1:3000/mcp", "a server on Streamable HTTP")
      .example(
        "$0 doctor https://mcp.example.com/mcp --token-file token.txt",
        "a server that needs a token",
      )
      .example(
        "$0 doctor -- node server.js",
        "a server on stdio, started by doctor (once per era)",
      ),
  handler: async (argv) => {
    const target = parseTarget(
      argv.url,
      (argv["--"] ?? []).map(String),
      requestHeaders(argv.header ?? [], argv["token-file"]),
    );
    const { runDoctor } = await withPackage(
      "livecmd doctor",
      "@modelcontextprotocol/client",
      () => import("./doctor/runDoctor.ts"),
    );
    process.exitCode = await runDoctor({
      target,
      json: argv.json === true,
      timeoutMs: argv.timeout * 1000,
      write: (text) => process.stdout.write(text),
    });
  },
};
