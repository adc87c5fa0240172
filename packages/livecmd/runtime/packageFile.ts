/**
 * A file of the livecmd package, from its root: the build bundles modules into files whose
 * folders are not their sources', so a path relative to a module would differ between the two.
 */
export function packageFile(pathInPackage: string): URL {
  return new URL(pathInPackage, import.meta.resolve("livecmd/package.json"));
}
