import { InputError } from "./inputError.ts";
import { livecmdManifest } from "./livecmdPackage.ts";

/** What `livecmd codegen` and `livecmd inspect` load besides livecmd: optional peer dependencies. */
export const GENERATOR_PEERS = ["ts-morph", "prettier", "handlebars", "diff"] as const;

/**
 * Runs `load` (an import of something that needs the optional peers `peers`), and turns a
 * missing one into the install command that brings them, at the versions livecmd declares.
 */
export async function withOptionalPeers<T>(purpose: string, peers: readonly string[], load: () => Promise<T>, otherwise = ""): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === undefined || !peers.includes(missing)) throw error;
    throw new InputError(`${purpose} needs ${missing}, which is not installed: npm install --save-dev ${installSpecs(peers)}${otherwise}`);
  }
}

/** `name@range` for each peer, as livecmd's package.json declares them. */
export function installSpecs(peers: readonly string[]): string {
  const declared = livecmdManifest().peerDependencies;
  return peers.map((peer) => `${peer}@${quoteForShell(declared[peer] ?? "latest")}`).join(" ");
}

/** The package a failed import could not find, if that is why it failed. */
export function missingPackage(error: unknown): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" || typeof message !== "string") return undefined;
  return /Cannot find package '([^']+)'/.exec(message)?.[1];
}

function quoteForShell(range: string): string {
  return /^[\w.~^-]+$/.test(range) ? range : `"${range}"`;
}
