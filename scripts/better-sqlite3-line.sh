#!/usr/bin/env bash
# Runs a command on another Node.js line with better-sqlite3 loadable there:
#   better-sqlite3-line.sh MAJOR COMMAND...   (COMMAND finds that line's `node` first on PATH)
# better-sqlite3 binds V8 itself, not Node-API, so the binary `npm ci` built for the machine's Node
# does not load on 22 or 24. The line's binary is compiled once from the installed package's own
# sources against the line's headers (node-gyp, as npm ships it; nothing is downloaded but the line
# itself: CI reaches only the npm registry) and kept in .cache/. COMMAND's processes on the line
# load it through better-sqlite3-line.cjs, preloaded by NODE_OPTIONS; node_modules is never
# touched, so the machine's Node elsewhere keeps loading the machine's binary meanwhile.
set -euo pipefail
major=${1:?usage: better-sqlite3-line.sh MAJOR COMMAND...}
shift
[ $# -gt 0 ] || { echo "better-sqlite3-line.sh: no COMMAND to run on Node $major" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
line=$(bash "$root/scripts/node-line.sh" "$major")
package="$root/node_modules/better-sqlite3"
version=$(node -p "require('$package/package.json').version")
built="$root/.cache/better-sqlite3-$version-node-$major/better_sqlite3.node"

if [ ! -f "$built" ]; then
  sources=$(mktemp -d)
  cp -r "$package/binding.gyp" "$package/deps" "$package/src" "$package/package.json" "$sources"
  node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  echo "better-sqlite3-line.sh: building better-sqlite3 $version for Node $major" >&2
  # Under `npm run` (npm run bench), npm passes its own nodedir (Debian's npm: /usr, the machine's
  # Node) as npm_config_nodedir, which node-gyp takes over --nodedir: the line's headers must win.
  (cd "$sources" && PATH="$line:$PATH" env -u npm_config_nodedir node "$node_gyp" rebuild --release --nodedir="$line/.." -j 2) \
    >"$sources/build.log" 2>&1 || { tail -20 "$sources/build.log" >&2; exit 1; }
  mkdir -p "$(dirname "$built")"
  cp "$sources/build/Release/better_sqlite3.node" "$built"
  rm -rf "$sources"
fi

export LIVECMD_BETTER_SQLITE3_BINARY="$built" LIVECMD_BETTER_SQLITE3_PACKAGE="$package" LIVECMD_BETTER_SQLITE3_MAJOR="$major"
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--require=$root/scripts/better-sqlite3-line.cjs"
# A binary that does not load would only make the suites skip better-sqlite3's cases: refuse here.
PATH="$line:$PATH" node -e "new (require('$package'))(':memory:').close()"
PATH="$line:$PATH" exec "$@"
