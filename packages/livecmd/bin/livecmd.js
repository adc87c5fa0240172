#!/usr/bin/env node
// The compiled CLI (npm run build; the published package ships it, built by prepack). A TypeScript app module is loaded
// through tsx only when one is given; a compiled app runs on plain Node.
import module from "node:module";

// A host starts `livecmd serve` at every session: with Node's compile cache (22.1 and later; in the system's temporary
// folder, or NODE_COMPILE_CACHE's), a start reuses V8's code for every module the last one compiled, the app's and its
// dependencies' included. Node 20 has none, and compiles them at every start.
module.enableCompileCache?.();
await import("../dist/cli/main.js");
