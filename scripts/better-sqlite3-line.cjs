// Preloaded by better-sqlite3-line.sh (NODE_OPTIONS=--require) into every Node process of the line.
// better-sqlite3 loads its binary through `bindings`, which requires build/Release/better_sqlite3.node
// by path. Putting the line's binary in require's cache under that path gives this process the
// line's binary while the file on disk stays the machine's, so another process on the machine's
// Node meanwhile loads the right one: nothing in node_modules is swapped.
"use strict";
const Module = require("node:module");
const fs = require("node:fs");
const path = require("node:path");

const { LIVECMD_BETTER_SQLITE3_BINARY: binary, LIVECMD_BETTER_SQLITE3_PACKAGE: pkg } = process.env;
const major = process.env.LIVECMD_BETTER_SQLITE3_MAJOR;
// A process of another line (the machine's node named by its full path) keeps the file on disk.
if (binary && pkg && process.versions.node.split(".")[0] === major) {
  const inPlace = fs.realpathSync(path.join(pkg, "build", "Release", "better_sqlite3.node"));
  const addon = new Module(inPlace);
  addon.filename = inPlace;
  process.dlopen(addon, binary);
  addon.loaded = true;
  Module._cache[inPlace] = addon;
}
