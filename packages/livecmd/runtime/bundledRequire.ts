import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { packageFile } from "./packageFile.ts";

/**
 * A CommonJS dependency the server loads (`require`, so a caller stays synchronous): in the
 * package, from the one file the build bundles its group into (`bundle.js` `BUNDLED`), which
 * loads in a fraction of the time of its modules one by one; from node_modules when the
 * runtime runs from its sources.
 */
export function bundledRequire(bundle: "ajv" | "pino", name: string): unknown {
  const require = createRequire(import.meta.url);
  if (import.meta.url.endsWith(".ts")) return require(name);
  const bundled = require(fileURLToPath(packageFile(`dist/bundled/${bundle}.cjs`))) as Record<
    string,
    unknown
  >;
  return bundled[name];
}
