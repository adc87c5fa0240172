/**
 * What a child given a bare environment (a stdio server a client starts, as hosts start them)
 * needs to run on the Node line the test runs on: under scripts/better-sqlite3-line.sh, the
 * preload that gives it that line's better-sqlite3; nothing otherwise.
 */
export function lineEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        (entry[0] === "NODE_OPTIONS" || entry[0].startsWith("LIVECMD_BETTER_SQLITE3_")) &&
        entry[1] !== undefined,
    ),
  );
}
