import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import path from "node:path";

/** Debian's nats-server, with JetStream (unless asked without), on 127.0.0.1: stopped, killed and started again on its port and store. */
export interface NatsServer {
  readonly url: string;
  /** Its monitoring endpoint (`/connz?subs=1`, `/varz`). */
  readonly monitor: string;
  /** Stops it (SIGTERM, JetStream's store flushed), or kills it (SIGKILL). */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts it again, on the same port and store. */
  start(): Promise<void>;
  /** Its process id while it runs (a bench reads its CPU time). */
  pid(): number | undefined;
  /** Each line it logged so far, over every start. */
  logged(): readonly string[];
}

export type NatsServerOrSkip =
  { server: NatsServer; skip?: undefined } | { server?: undefined; skip: string };

const BINARY = ["/usr/sbin/nats-server", "nats-server"].find(
  (candidate) => spawnSync(candidate, ["--version"]).status === 0,
);

/**
 * A throwaway nats-server of this test process's own, stopped when the process exits;
 * `config` is its configuration file's text (`write_deadline: "250ms"`), besides what it is
 * started with; JetStream on unless `jetstream` is false.
 */
export async function natsServer(config = "", jetstream = true): Promise<NatsServerOrSkip> {
  if (!BINARY) return { skip: "no nats-server here: apt-get install -y nats-server" };
  const store = mkdtempSync(path.join(tmpdir(), "livecmd-nats-"));
  const configFile = path.join(store, "nats.conf");
  writeFileSync(configFile, config);
  const [port, monitorPort] = [await freePort(), await freePort()];
  const args = ["-c", configFile, "-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPort)];
  if (jetstream) args.push("-js", "-sd", store);
  let child: ChildProcess | undefined;
  const logged: string[] = [];
  const start = async () => {
    child = spawn(BINARY, args, { stdio: ["ignore", "ignore", "pipe"] });
    createInterface({ input: child.stderr! }).on("line", (line) => logged.push(line));
    await ready(child, logged);
    // It must not keep the test process alive: the process kills it on exit.
    child.unref();
    (child.stderr as Socket).unref();
  };
  const stop = async (signal: "SIGTERM" | "SIGKILL" = "SIGTERM") => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    // Held until it has exited: a stop awaited last must not let the process end first.
    running.ref();
    running.kill(signal);
    await exited;
  };
  process.once("exit", () => {
    child?.kill("SIGKILL");
    rmSync(store, { recursive: true, force: true });
  });
  await start();
  const url = `nats://127.0.0.1:${port}`;
  const monitor = `http://127.0.0.1:${monitorPort}`;
  return { server: { url, monitor, start, stop, pid: () => child?.pid, logged: () => logged } };
}

/**
 * Resolves once the server says it is ready for clients (its stderr, read into `logged`), within
 * 30 s.
 */
function ready(child: ChildProcess, logged: readonly string[]): Promise<void> {
  const said = () => logged.join("\n");
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`nats-server was not ready within 30 s: ${said()}`));
    }, 30_000);
    child.stderr!.on("data", () => {
      // The line reader is told first: it listened before this.
      if (!logged.some((line) => line.includes("Server is ready"))) return;
      clearTimeout(late);
      resolve();
    });
    child.once("exit", (code) => {
      clearTimeout(late);
      reject(new Error(`nats-server exited (${code}): ${said()}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
