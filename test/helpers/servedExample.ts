import { spawn } from "node:child_process";
import { lineEnvironment } from "./lineEnvironment.ts";
import { once } from "node:events";
import { createInterface } from "node:readline";
import {
  Client,
  StreamableHTTPClientTransport,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export type Era = "2026-07-28" | "2025-11-25";
export type Transport = "stdio" | "http";

/** `livecmd serve` of the example app, started as a user starts it, on a fresh database. */
const SERVE = ["packages/livecmd/bin/livecmd.js", "serve", "--app", "example/app.ts"];
const ENV = { LIVECMD_EXAMPLE_DB: ":memory:" };

export interface ServedExample {
  client: Client;
  close(): Promise<void>;
}

/**
 * The SDK's `Client`, on `era`, connected to the example app served by a child process: over
 * stdio, or over Streamable HTTP on 127.0.0.1 (a random port the server prints).
 */
export async function servedExample(
  era: Era,
  transport: Transport,
  options: {
    /** The person behind the client: declares form elicitation and answers each question. */
    elicit?: (request: ElicitRequest["params"]) => ElicitResult;
  } = {},
): Promise<ServedExample> {
  const { elicit } = options;
  const client = new Client(
    { name: "e2e", version: "0" },
    {
      versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" },
      ...(elicit && { capabilities: { elicitation: { form: {} } } }),
    },
  );
  if (elicit) client.setRequestHandler("elicitation/create", (request) => elicit(request.params));
  if (transport === "stdio") {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: SERVE,
        env: { ...lineEnvironment(), ...ENV },
        stderr: "ignore",
      }),
    );
    return { client, close: () => client.close() };
  }
  const child = spawn(process.execPath, [...SERVE, "--http", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...ENV },
  });
  const url = await printedUrl(child.stdout);
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    client,
    async close() {
      await client.close();
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function printedUrl(stdout: NodeJS.ReadableStream): Promise<URL> {
  for await (const line of createInterface({ input: stdout })) {
    const served = /^livecmd: serving app "app" at (\S+)$/.exec(line);
    if (served) return new URL(served[1]!);
  }
  throw new Error("livecmd serve exited without printing its URL");
}
