#!/usr/bin/env bash
# The MCP conformance suite (@modelcontextprotocol/conformance, pinned in test/peers/package.json) against
# `livecmd serve --http` of the example app, on Node 22 (the suite needs it; the server runs on
# this machine's Node, which built better-sqlite3 for itself). Passes when the failures are
# exactly the baseline's (test/conformance/mcp-server-baseline.yml, the suite's own
# --expected-failures check) and no check warned. Run it after `npm ci` (the CLI's dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
suite_node="$(bash scripts/peer-tools.sh)/node"
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
LIVECMD_EXAMPLE_DB=:memory: node packages/livecmd/bin/livecmd.js serve --app example/app.ts --http 0 \
  >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
url=
for _ in $(seq 1 100); do
  url=$(sed -n 's/^livecmd: serving app "app" at \(http[^ ]*\)$/\1/p' "$work/serve.out")
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "conformance.sh: livecmd serve printed no URL:" >&2
  cat "$work/serve.err" >&2
  exit 1
fi
status=0
"$suite_node" test/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js server --url "$url" \
  --expected-failures test/conformance/mcp-server-baseline.yml --output-dir "$work/results" \
  >"$work/suite.out" 2>&1 || status=$?
sed -n '/=== SUMMARY ===/,$p' "$work/suite.out"
# The suite's baseline counts failures only; a warning (a SHOULD not met) fails here.
warnings=$("$suite_node" -e '
  const fs = require("node:fs");
  const dir = process.argv[1];
  for (const run of fs.readdirSync(dir))
    for (const check of JSON.parse(fs.readFileSync(`${dir}/${run}/checks.json`, "utf8")))
      if (check.status === "WARNING") console.log(`${run}: ${check.id}: ${check.errorMessage ?? ""}`);
' "$work/results")
if [ -n "$warnings" ]; then
  echo "conformance.sh: warnings:" >&2
  echo "$warnings" >&2
  status=1
fi
if [ "$status" != 0 ]; then
  echo "conformance.sh: failed (the suite's full output follows)" >&2
  cat "$work/suite.out" >&2
  exit 1
fi
echo "conformance.sh: every failure is the baseline's, no warning"
