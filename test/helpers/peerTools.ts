import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { root, run } from "./cli.ts";

/** The folder of a Node `major` binary (scripts/node-line.sh installs it once from the registry). */
export async function nodeLine(major: number): Promise<string> {
  const line = await run("bash", [path.join(root, "scripts/node-line.sh"), String(major)], {
    cwd: root,
  });
  if (line.code !== 0) throw new Error(`scripts/node-line.sh ${major} failed:\n${line.stderr}`);
  return line.stdout.trim();
}

/** The MCP Inspector's version the tests pin (test/peers), which init and the docs print. */
export const INSPECTOR_VERSION = (
  JSON.parse(readFileSync(path.join(root, "test/peers/package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  }
).dependencies["@modelcontextprotocol/inspector"]!;

/**
 * The MCP Inspector CLI as the tests run it: `[command, ...args before its own]`. It needs Node
 * 22.19+, so scripts/peer-tools.sh installs it (once, apart from the root install) and names the
 * Node 22 that runs it; the servers it starts still run on this machine's Node.
 */
export function inspectorCommand(): [string, string] {
  const nodeBin = execFileSync("bash", [path.join(root, "scripts/peer-tools.sh")], {
    encoding: "utf8",
  }).trim();
  return [
    path.join(nodeBin, "node"),
    path.join(
      root,
      "test/peers/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
    ),
  ];
}
