import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "./processes.ts";

/** Where the bench writes its apps: under the repository (so `livecmd` resolves) and git-ignored. */
export const BENCH_APPS_DIR = path.join(REPO_ROOT, ".tmp/bench-apps");

export interface SyntheticApp {
  /** The app module, relative to the repository root, as `livecmd codegen --app` takes it. */
  appFile: string;
  /** The output folder, relative to the repository root. */
  outDir: string;
  /** Absolute path of one command module, per command, in order. */
  commandFiles: string[];
  /** The command name of each module, in order: what `commandModule` takes to rewrite one. */
  names: string[];
}

/**
 * Writes an app of `count` commands into `.tmp/bench-apps/<folder>`, from scratch, one module
 * per command shaped like the example's: an enum alias, a struct of optional fields, and a live
 * command taking three scalars and the struct, so every command gets a template of three path
 * and three query variables.
 */
export async function writeSyntheticApp(
  count: number,
  folder = `app-${count}`,
  { drizzle = false } = {},
): Promise<SyntheticApp> {
  const root = path.join(BENCH_APPS_DIR, folder);
  await rm(root, { recursive: true, force: true });
  await mkdir(path.join(root, "commands"), { recursive: true });
  const names = Array.from({ length: count }, (_, i) => `item${String(i).padStart(4, "0")}`);
  const commandFiles = names.map((name) => path.join(root, "commands", `${name}.ts`));
  await Promise.all(
    names.map((name, i) => writeFile(commandFiles[i]!, commandModule(name, 0, drizzle))),
  );
  if (drizzle) await writeFile(path.join(root, "db.ts"), DRIZZLE_MODULE);
  await writeFile(path.join(root, "app.ts"), appModule(names));
  const relative = (file: string) => path.relative(REPO_ROOT, file);
  return {
    appFile: relative(path.join(root, "app.ts")),
    outDir: relative(path.join(root, "generated")),
    commandFiles,
    names,
  };
}

/**
 * One command module. `revision` only changes a description, which changes the generated
 * catalog and modules: the watch bench edits files with it and waits for the output. With
 * `drizzle`, the handler reads through Drizzle (`DRIZZLE_MODULE`), so its result type is the
 * ORM's inferred row type, as in an app that uses one.
 */
export function commandModule(name: string, revision: number, drizzle = false): string {
  const type = name[0]!.toUpperCase() + name.slice(1);
  const handler = drizzle
    ? `async (ctx, owner_id: Int, since: string, min_total: number, filter: ${type}Filter) =>
    orm
      .select()
      .from(rows)
      .where(and(eq(rows.owner_id, owner_id), gte(rows.since, since), gte(rows.total, min_total)))
      .limit(filter.limit ?? 20)`
    : `(ctx, owner_id: Int, since: string, min_total: number, filter: ${type}Filter) =>
    [owner_id, since, min_total, filter.status ?? null, filter.limit ?? 20, filter.search ?? null]`;
  const imports = drizzle
    ? `import { and, eq, gte } from "drizzle-orm";\nimport { orm, rows } from "../db.ts";\n`
    : "";
  return `import { command, type Int } from "livecmd";
${imports}
export type ${type}Status = "open" | "held" | "closed";

export interface ${type}Filter {
  /** Only rows in this status; every status when absent. */
  status?: ${type}Status;
  /** Rows per page, 1 to 100; 20 when absent. */
  limit?: Int;
  /** Text to find, case-insensitive. */
  search?: string;
}

/**
 * The rows of ${name} for one owner from a given day (revision ${revision}).
 * @param owner_id The owner's id.
 * @param since The first day, \`YYYY-MM-DD\`.
 * @param min_total The smallest total to include.
 */
export const ${name}_list = command(
  { live: true, title: "${type}" },
  ${handler},
);
`;
}

/** The Drizzle table and client the commands of a Drizzle-shaped app read through. */
const DRIZZLE_MODULE = `import { drizzle } from "drizzle-orm/node-postgres";
import { integer, pgTable, real, serial, text } from "drizzle-orm/pg-core";
import pg from "pg";

export const rows = pgTable("rows", {
  id: serial("id").primaryKey(),
  owner_id: integer("owner_id").notNull(),
  since: text("since").notNull(),
  total: real("total").notNull(),
  status: text("status"),
});

export const orm = drizzle(new pg.Pool());
`;

function appModule(names: string[]): string {
  const imports = names.map((name) => `import * as ${name} from "./commands/${name}.ts";`);
  return `import { defineApp } from "livecmd";
${imports.join("\n")}

export default defineApp({
  name: "bench",
  commands: { ${names.map((name) => `...${name}`).join(", ")} },
  agent: { grant: [${names.map((name) => `${name}.${name}_list`).join(", ")}] },
});
`;
}
