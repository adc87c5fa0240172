#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so `npx livecmd` works right after `npm ci`, with no build.
import { register } from "tsx/esm/api";

register();
await import("../generator/cli.ts");
