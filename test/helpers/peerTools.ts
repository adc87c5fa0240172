import { execFileSync } from "node:child_process";
import path from "node:path";
import { root } from "./cli.ts";

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
