/**
 * The one line for an app that imports `node:sqlite` on a Node.js that has none (before 22.13
 * it is missing, or behind a flag): Node's own error is a stack that names no way out, and a
 * starter made on Node 22 says nothing of it.
 */
export function missingNodeSqliteProblem(error: unknown): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== "ERR_UNKNOWN_BUILTIN_MODULE" || typeof message !== "string") return undefined;
  if (!message.includes("node:sqlite")) return undefined;
  return `the app imports node:sqlite, which Node.js ${process.versions.node} does not have (it is built in from Node.js 22.13): run it on Node.js 22.13 or later, or use better-sqlite3 there (npm install better-sqlite3@^12)`;
}
