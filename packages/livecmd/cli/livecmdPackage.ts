import { readFileSync } from "node:fs";

export interface LivecmdManifest {
  version: string;
  peerDependencies: Record<string, string>;
}

let manifest: LivecmdManifest | undefined;

/**
 * livecmd's own package.json, found by walking up from this module: it sits one folder up in
 * the repository (`cli/`) and two in the package (`dist/cli/`).
 */
export function livecmdManifest(): LivecmdManifest {
  manifest ??= findManifest();
  return manifest;
}

function findManifest(): LivecmdManifest {
  for (
    let folder = new URL("./", import.meta.url);
    folder.pathname !== "/";
    folder = new URL("../", folder)
  ) {
    let text: string;
    try {
      text = readFileSync(new URL("package.json", folder), "utf8");
    } catch {
      continue;
    }
    const parsed = JSON.parse(text) as {
      name?: string;
      version?: string;
      peerDependencies?: Record<string, string>;
    };
    if (parsed.name === "livecmd" && parsed.version)
      return {
        version: parsed.version,
        peerDependencies: parsed.peerDependencies ?? {},
      };
  }
  throw new Error("livecmd: cannot find livecmd's own package.json above its modules");
}
