#!/usr/bin/env node
// The compiled CLI (npm run build; the published package ships it, built by prepack). A TypeScript app module is loaded
// through tsx only when one is given; a compiled app runs on plain Node.
await import("../dist/cli/main.js");
