#!/usr/bin/env bash
# The MCP peers the tests drive (the Inspector CLI, the conformance suite: test/peers/package.json)
# need Node 22.19+, so they are installed apart from the root `npm ci`, which then warns of no
# engine on any Node line livecmd supports. Installs them once with Node 22 (scripts/node-line.sh)
# into test/peers/node_modules, again only when the lock file changed, and prints the folder of
# the Node 22 binary that runs them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
node_bin=$(bash "$root/scripts/node-line.sh" 22)
peers="$root/test/peers"
stamp="$peers/node_modules/.installed-lock"
if ! cmp -s "$peers/package-lock.json" "$stamp" 2>/dev/null; then
  PATH="$node_bin:$PATH" npm ci --prefix "$peers" --no-audit --no-fund --silent >&2
  cp "$peers/package-lock.json" "$stamp"
fi
echo "$node_bin"
