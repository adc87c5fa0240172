import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { freshPostgresDatabase } from "../../example/freshPostgresDatabase.ts";
import { emptyDatabase, postgresServer } from "../helpers/postgres.ts";
import { busServers, startBus } from "./busServers.ts";
import { FAULTS, isFault } from "./faults.ts";
import { checkLive, reportLine, type Target } from "./liveChecker.ts";
import { exampleShopOn, LIBRARIES, notesOn, type Elsewhere } from "./targets.ts";

/**
 * `npm run soak`: the live-correctness checker (`liveChecker.ts`) on every target and database,
 * one process per run (each of examples/'s apps opens its database once per process, so every
 * seed starts from the same rows and replays the same schedule).
 *
 *   npm run soak -- [--target shop|drizzle|kysely|prisma] [--database sqlite|postgres]
 *                   [--seed N] [--seeds K] [--rounds R] [--break unbound|drop|misattribute|unrouted|unfenced]
 *                   [--bus N]
 *
 * Seeds N, N+1, ... N+K-1 on each target and database (N random when absent, and printed);
 * `--break` runs it on livecmd broken on purpose (`faults.ts`) and stops at the first seed that
 * fails. `--bus N` (the shop on PostgreSQL with `wal_level = logical`) serves it from N more
 * processes besides the checker's, every one on a nats-server of the run's own, and spreads the
 * watchers over them. Exits 1 when a property failed (0 under `--break` when one did), 2 on bad input.
 */

export const TARGETS = ["shop", ...LIBRARIES] as const;
export const DATABASES = ["sqlite", "postgres"] as const;
type TargetName = (typeof TARGETS)[number];
type DatabaseName = (typeof DATABASES)[number];

const USAGE =
  "usage: npm run soak -- [--target shop|drizzle|kysely|prisma] [--database sqlite|postgres] [--seed N] [--seeds K] [--rounds R] [--break unbound|drop|misattribute|unrouted|unfenced] [--bus N]";

interface Run {
  target: TargetName;
  database: DatabaseName;
  seed: number;
  rounds: number;
  fault?: string;
  /** More processes serving the target, on a bus (0: none, no bus). */
  bus: number;
}

function options(argv: readonly string[]) {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      target: { type: "string" },
      database: { type: "string" },
      seed: { type: "string" },
      seeds: { type: "string", default: "1" },
      rounds: { type: "string", default: "200" },
      break: { type: "string" },
      bus: { type: "string", default: "0" },
      one: { type: "boolean", default: false },
    },
  });
  const number = (name: string, text: string | undefined) => {
    const value = Number(text);
    if (text === undefined || !Number.isSafeInteger(value) || value < 0)
      throw new Error(`--${name} takes a whole number, not ${JSON.stringify(text)}; ${USAGE}`);
    return value;
  };
  const oneOf = <T extends string>(name: string, text: string | undefined, all: readonly T[]) => {
    if (text === undefined) return all;
    if (!all.includes(text as T))
      throw new Error(`--${name} takes one of ${all.join(", ")}, not ${JSON.stringify(text)}`);
    return [text as T];
  };
  if (values.break !== undefined && !isFault(values.break))
    throw new Error(
      `--break takes one of ${Object.keys(FAULTS).join(", ")}, not ${JSON.stringify(values.break)}`,
    );
  const bus = number("bus", values.bus);
  if (bus > 0 && (values.target !== "shop" || values.database !== "postgres"))
    throw new Error(
      `--bus serves the example shop from more processes: pass --target=shop --database=postgres with it; ${USAGE}`,
    );
  return {
    bus,
    targets: oneOf("target", values.target, TARGETS),
    databases: oneOf("database", values.database, DATABASES),
    seed:
      values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : number("seed", values.seed),
    seeds: number("seeds", values.seeds),
    rounds: number("rounds", values.rounds),
    fault: values.break,
    one: values.one,
  };
}

/** The target `run` names, on a fresh database of its own (`where`). */
async function targetOf(run: Run, scratch: string): Promise<{ target: Target; where: Elsewhere }> {
  const server = run.database === "postgres" ? postgresServer() : undefined;
  if (server?.skip) throw new Error(server.skip);
  const where: Elsewhere = !server
    ? { kind: "sqlite", file: path.join(scratch, `${run.target}.sqlite`) }
    : {
        kind: "postgres",
        url: await (run.target === "shop" ? freshPostgresDatabase : emptyDatabase)(server.url!),
      };
  const target = await (run.target === "shop" ? exampleShopOn(where) : notesOn(run.target, where));
  return { target, where };
}

/** One run, in this process: its report line, and each failure. Resolves whether all held. */
export async function runOne(run: Run, say: (line: string) => void): Promise<boolean> {
  if (run.fault !== undefined && isFault(run.fault)) FAULTS[run.fault]();
  const scratch = mkdtempSync(path.join(tmpdir(), "livecmd-soak-"));
  const bus = run.bus > 0 ? await startBus() : undefined;
  const built = await targetOf(run, scratch);
  const others =
    bus && built.where.kind === "postgres"
      ? await busServers(run.bus, built.where.url, bus)
      : undefined;
  const target = others
    ? { ...built.target, name: `${built.target.name}, on a bus across ${run.bus + 1} processes` }
    : built.target;
  try {
    const report = await checkLive(target, {
      seed: run.seed,
      rounds: run.rounds,
      ...(others && { others: others.urls, watchersPerKind: 2 }),
    });
    say(reportLine(target, report));
    for (const failure of report.failures.slice(0, 5)) say(`  ${failure}`);
    return report.failures.length === 0;
  } finally {
    others?.close();
    await target.app.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const SELF = fileURLToPath(import.meta.url);

/** `run` in a child process of its own, its lines passed on; resolves whether every property held. */
function runChild(run: Run): Promise<boolean> {
  const args = [
    ...process.execArgv,
    SELF,
    "--one",
    `--target=${run.target}`,
    `--database=${run.database}`,
    `--seed=${run.seed}`,
    `--rounds=${run.rounds}`,
    `--bus=${run.bus}`,
    ...(run.fault ? [`--break=${run.fault}`] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
  // A soak stopped (a test's time-out, ^C) stops its run too, rather than leave it running.
  const stop = (signal: NodeJS.Signals) => {
    child.kill(signal);
    process.exit(1);
  };
  process.once("SIGTERM", stop).once("SIGINT", stop);
  child.on("exit", () => process.off("SIGTERM", stop).off("SIGINT", stop));
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 || code === 1
        ? resolve(code === 0)
        : reject(new Error(`a soak run exited ${code}`)),
    ),
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const chosen = options(argv);
  if (chosen.one) {
    const [target, database] = [chosen.targets[0]!, chosen.databases[0]!];
    return (await runOne({ target, database, ...chosen }, console.log)) ? 0 : 1;
  }
  // One server for every child (started here when DATABASE_URL is unset, stopped at exit).
  if (chosen.databases.includes("postgres")) {
    const server = postgresServer();
    if (server.url) process.env.DATABASE_URL = server.url;
  }
  console.log(
    `soak: seeds ${chosen.seed} to ${chosen.seed + chosen.seeds - 1}, ${chosen.rounds} rounds each${chosen.fault ? `, livecmd broken: ${chosen.fault}` : ""}`,
  );
  let failed = false;
  for (const target of chosen.targets)
    for (const database of chosen.databases)
      for (let n = 0; n < chosen.seeds; n++) {
        const held = await runChild({ target, database, ...chosen, seed: chosen.seed + n });
        failed ||= !held;
        if (!held && chosen.fault) {
          console.log(
            `soak: the checker caught ${chosen.fault} on ${target}/${database} in run ${n + 1}`,
          );
          break;
        }
      }
  if (chosen.fault) return failed ? 0 : 1;
  return failed ? 1 : 0;
}

if (process.argv[1] === SELF)
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(`soak: ${error.message}`);
      process.exit(2);
    },
  );
