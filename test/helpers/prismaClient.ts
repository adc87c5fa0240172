import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root } from "./cli.ts";

/**
 * Prisma's client for `models` on PostgreSQL, generated into `folder` for this run
 * (scripts/prisma-generate.sh explains the engine variable); the path of its module.
 */
export function generatedPostgresClient(folder: string, models: string): string {
  mkdirSync(folder, { recursive: true });
  const schema = `generator client {\n  provider = "prisma-client"\n  output   = "./client"\n}\ndatasource db {\n  provider = "postgresql"\n}\n${models}`;
  writeFileSync(path.join(folder, "schema.prisma"), schema);
  const generated = spawnSync(
    "npx",
    ["--no-install", "prisma", "generate", "--schema", path.join(folder, "schema.prisma")],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: "/bin/false" },
    },
  );
  if (generated.status !== 0) throw new Error(`prisma generate failed: ${generated.stderr}`);
  return path.join(folder, "client/client.ts");
}
