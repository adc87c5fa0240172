import { ts, type SourceFile } from "ts-morph";

/**
 * The sources whose meaning an edit of `changed` can have changed: those files and every file
 * that imports one of them, directly or through others. All of them when one is a script (no
 * import or export): its declarations are global, and any file may use them.
 */
export function affectedFiles(changed: Iterable<SourceFile>): Set<SourceFile> | "all" {
  const affected = new Set<SourceFile>();
  const pending = [...changed];
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (affected.has(file)) continue;
    if (!ts.isExternalModule(file.compilerNode)) return "all";
    affected.add(file);
    pending.push(...file.getReferencingSourceFiles());
  }
  return affected;
}
