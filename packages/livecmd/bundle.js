// The package's JavaScript in dist/ (tsc writes only the declarations beside it): each entry of
// package.json's `exports`, the binary's CLI, and the view pages' runtime, bundled by esbuild, the modules entries share
// split into chunks (each module in one file, so the entries share its state). A host starts
// `livecmd serve` at every session and waits for it: Node resolves, reads and links every file
// it loads, and one file per source module cost a start more than running them (issue 37).
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("./", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

/** `{ in: source, out: path in dist/ without .js }` of every conditional export, and the CLI. */
const entryPoints = [
  ...Object.values(manifest.exports)
    .filter((target) => typeof target === "object")
    .map((target) => ({
      in: target["livecmd-source"],
      out: target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ""),
    })),
  // bin/livecmd.js imports it.
  { in: "./cli/main.ts", out: "cli/main" },
];

const common = {
  absWorkingDir: root.pathname,
  bundle: true,
  platform: "node",
  target: "node20.19",
  sourcemap: true,
  logLevel: "warning",
};

rmSync(new URL("dist", root), { recursive: true, force: true });
await build({
  ...common,
  entryPoints,
  outdir: "dist",
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[hash]",
  // Dependencies load from node_modules, and the CLI reaches the runtime through its entries.
  packages: "external",
});

// The CommonJS dependencies a server loads, each group in one file (some 180 modules for ajv,
// 30 for pino): `runtime/bundledRequire.ts` requires them from it, by these names.
const BUNDLED = {
  // On the first validation, while an agent waits for its answer.
  ajv: ["ajv", "ajv-formats"],
  // The log, before the first answer.
  pino: ["pino"],
};
for (const [bundle, packages] of Object.entries(BUNDLED)) {
  const required = packages.map(
    (name) => `${JSON.stringify(name)}: require(${JSON.stringify(name)})`,
  );
  await build({
    ...common,
    stdin: {
      contents: `module.exports = { ${required.join(", ")} };`,
      resolveDir: root.pathname,
      sourcefile: `${bundle}.cjs`,
    },
    outfile: `dist/bundled/${bundle}.cjs`,
    format: "cjs",
  });
}

// zod's error messages in every language but English (about 260 KB of a view's page): the
// ext-apps app SDK reaches zod through its `z` namespace, which keeps every export, and a view
// never chooses another language (`z.config(z.locales.xx())`). English, the default, is
// imported on its own (`zod/v4/classic/schemas.js`) and stays.
const englishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer }) =>
      importer.includes("/node_modules/zod/")
        ? { path: "zod-locales", namespace: "english-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "english-only" }, () => ({ contents: "export {};" }));
  },
};

// The SDK's client and core declare no `sideEffects`, so a bundler keeps every module they
// import: the app SDK needs only `Protocol` and some schemas, not the `Client`, its OAuth flows
// or its JSON Schema validators (about 70 KB of a view's page). Their modules only define what
// they export, so each is kept only when something it exports is used (the view tests in
// Chromium hold the page working).
const SDK_RESOLVED = Symbol("resolved by esbuild");
const sdkWithoutSideEffects = {
  name: "sdk-without-side-effects",
  setup(build) {
    build.onResolve({ filter: /^(@modelcontextprotocol\/(client|core)|\.\.?\/)/ }, async (args) => {
      if (args.pluginData === SDK_RESOLVED) return undefined;
      const { path, errors } = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: SDK_RESOLVED,
      });
      const sdk = /\/node_modules\/@modelcontextprotocol\/(client|core)\//.test(path);
      return errors.length === 0 && sdk ? { path, sideEffects: false } : undefined;
    });
  },
};

// The runtime every view page holds inline (`runtime/view/viewScript.ts` reads it).
await build({
  entryPoints: ["view/viewRuntime.ts"],
  absWorkingDir: root.pathname,
  bundle: true,
  conditions: ["livecmd-source"],
  minify: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
  outfile: "dist/view/viewRuntime.js",
  plugins: [englishOnly, sdkWithoutSideEffects],
});
