import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  addCommand,
  DEV_PACKAGES,
  InputError,
  KIT,
  livecmdManifest,
  packageManagerOf,
  shellLine,
} from "livecmd/cli";
import { recordInstallScripts, type ScriptSettings } from "./installScripts.ts";
import { STARTER_TSCONFIG, starterApp, starterDriver, type StarterDriver } from "./starterFiles.ts";

export interface InitOptions {
  cwd: string;
  /** Install the packages the app needs (npm install); otherwise print the commands. */
  install: boolean;
  log: (text: string) => void;
}

const APP = "src/app.ts";
const OUT = "src/generated";
const SCRIPTS = { codegen: "livecmd codegen", serve: "livecmd serve" } as const;

interface Manifest extends ScriptSettings {
  name?: string;
  type?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * `livecmd init`: a starter app in `src/app.ts`, the `codegen` and `serve` scripts, a tsconfig
 * when there is none, the packages it needs, and its generated files. Refuses, before writing
 * anything, when it would overwrite a file or a script of the project's.
 */
export async function initProject(options: InitOptions): Promise<{ scheme: string }> {
  const { cwd, log } = options;
  const manifestFile = path.join(cwd, "package.json");
  const manifest: Manifest = existsSync(manifestFile)
    ? (JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest)
    : { name: packageName(cwd), private: true, type: "module" };
  // A fresh `npm install livecmd` writes a package.json without "type", and npm 11's `npm init -y`
  // one with "commonjs"; with no JavaScript of the project's to reinterpret, making it an ES
  // module changes nothing else.
  if ((manifest.type === undefined || manifest.type === "commonjs") && !hasJavaScript(cwd))
    manifest.type = "module";
  if (manifest.type !== "module") {
    throw new InputError(
      `package.json is not "type": "module", and the starter app is an ES module: add "type": "module" to package.json, or write the app yourself (see the livecmd README)`,
    );
  }
  const conflicts = conflictsIn(cwd, manifest);
  if (conflicts.length > 0)
    throw new InputError(
      `livecmd init would overwrite ${conflicts.join(", ")}; nothing was written. Move ${conflicts.length === 1 ? "it" : "them"} away, or run init in a new folder`,
    );

  const scheme = schemeOf(manifest.name ?? packageName(cwd));
  const driver = starterDriver();
  const manager = packageManagerOf(cwd);
  const wanted = missingPackages(manifest, driver);
  manifest.scripts = { ...manifest.scripts, ...SCRIPTS };
  recordInstallScripts(manifest, manager, [...wanted.save, ...wanted.saveDev].map(nameOf));
  await mkdir(path.join(cwd, "src"), { recursive: true });
  await writeFile(path.join(cwd, APP), starterApp(scheme, driver));
  log(`wrote ${APP} (SQLite through ${driver})`);
  if (!existsSync(path.join(cwd, "tsconfig.json"))) {
    await writeFile(path.join(cwd, "tsconfig.json"), STARTER_TSCONFIG);
    log("wrote tsconfig.json");
  }
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`wrote package.json (scripts: ${Object.keys(SCRIPTS).join(", ")})`);

  const installs = (["save", "saveDev"] as const)
    .filter((kind) => wanted[kind].length > 0)
    .map((kind) => addCommand(manager, kind, wanted[kind]));
  if (!options.install) {
    for (const command of installs)
      log(`to install what the app needs, run: ${shellLine(command)}`);
    log("then: npx livecmd codegen");
    return { scheme };
  }
  for (const command of installs) await run(command, cwd, log);
  const { runCodegen } = await import("../../generator/runCodegen.ts");
  const code = await runCodegen({
    app: APP,
    out: OUT,
    check: false,
    force: false,
    cwd,
    log,
    rerun: "npx livecmd codegen",
  });
  if (code !== 0)
    throw new InputError(`codegen of the starter app failed (exit ${code}); see above`);
  return { scheme };
}

/** Files and scripts init would overwrite. */
function conflictsIn(cwd: string, manifest: Manifest): string[] {
  const conflicts: string[] = [];
  if (existsSync(path.join(cwd, APP))) conflicts.push(APP);
  const out = path.join(cwd, OUT);
  if (existsSync(out) && readdirSync(out).length > 0) conflicts.push(`${OUT}/`);
  for (const [name, script] of Object.entries(SCRIPTS)) {
    const existing = manifest.scripts?.[name];
    if (existing !== undefined && existing !== script)
      conflicts.push(`the "${name}" script (${JSON.stringify(existing)})`);
  }
  return conflicts;
}

/** What the starter app needs and package.json does not declare yet, as `name@range` (or `name`: the latest). */
function missingPackages(
  manifest: Manifest,
  driver: StarterDriver,
): { save: string[]; saveDev: string[] } {
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ]);
  const { version, peerDependencies: peers } = livecmdManifest();
  const nodeMajor = process.versions.node.split(".")[0];
  const native = driver === "better-sqlite3";
  const runtime: Record<string, string> = {
    livecmd: version,
    ...(native && { "better-sqlite3": peers["better-sqlite3"] ?? "^12.0.0" }),
  };
  const development: Record<string, string> = {
    [KIT]: version,
    ...DEV_PACKAGES,
    // No range: the TypeScript `npm i -D typescript` gives today (7.0 as of late 2026), which the starter compiles under.
    typescript: "",
    "@types/node": `^${nodeMajor}.0.0`,
    ...(native && { "@types/better-sqlite3": "^7.6.0" }),
  };
  const specs = (wanted: Record<string, string>) =>
    Object.entries(wanted)
      .filter(([name]) => !declared.has(name))
      .map(([name, range]) => (range ? `${name}@${range}` : name));
  return { save: specs(runtime), saveDev: specs(development) };
}

/** `better-sqlite3` of `better-sqlite3@^12.0.0`, `@types/node` of `@types/node@^20.0.0`, `typescript` of `typescript`. */
function nameOf(spec: string): string {
  const at = spec.lastIndexOf("@");
  return at > 0 ? spec.slice(0, at) : spec;
}

function run(command: string[], cwd: string, log: (text: string) => void): Promise<void> {
  log(`running ${shellLine(command)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd,
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", (error) =>
      reject(new InputError(`could not run ${shellLine(command)}: ${error.message}`)),
    );
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(
            new InputError(
              `${shellLine(command)} failed (exit ${code}); run it yourself, then npx livecmd codegen`,
            ),
          ),
    );
  });
}

/** Whether the project has JavaScript of its own (at its root or in src/) that "type" would affect. */
function hasJavaScript(cwd: string): boolean {
  return [cwd, path.join(cwd, "src")].some(
    (folder) => existsSync(folder) && readdirSync(folder).some((file) => /\.(js|jsx)$/.test(file)),
  );
}

function packageName(cwd: string): string {
  return (
    path
      .basename(cwd)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-") || "app"
  );
}

/** A URI scheme from the package name: `@acme/Notes App` gives `notes-app`; `app` when nothing is left. */
export function schemeOf(name: string): string {
  const scheme = name
    .replace(/^@[^/]*\//, "")
    .toLowerCase()
    .replace(/[^a-z0-9+.-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "");
  return scheme || "app";
}
