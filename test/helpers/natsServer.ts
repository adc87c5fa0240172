import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** Debian's nats-server, with JetStream, on 127.0.0.1: stopped, killed and started again on its port and store. */
export interface NatsServer {
  readonly url: string;
  /** Stops it (SIGTERM, JetStream's store flushed), or kills it (SIGKILL). */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts it again, on the same port and store. */
  start(): Promise<void>;
}

export type NatsServerOrSkip =
  { server: NatsServer; skip?: undefined } | { server?: undefined; skip: string };

const BINARY = ["/usr/sbin/nats-server", "nats-server"].find(
  (candidate) => spawnSync(candidate, ["--version"]).status === 0,
);

/** A throwaway nats-server of this test process's own, stopped when the process exits. */
export async function natsServer(): Promise<NatsServerOrSkip> {
  if (!BINARY) return { skip: "no nats-server here: apt-get install -y nats-server" };
  const store = mkdtempSync(path.join(tmpdir(), "livecmd-nats-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(BINARY, ["-js", "-sd", store, "-a", "127.0.0.1", "-p", String(port)], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    await ready(child);
  };
  const stop = async (signal: "SIGTERM" | "SIGKILL" = "SIGTERM") => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill(signal);
    await exited;
  };
  process.once("exit", () => {
    child?.kill("SIGKILL");
    rmSync(store, { recursive: true, force: true });
  });
  await start();
  return { server: { url: `nats://127.0.0.1:${port}`, start, stop } };
}

/** Resolves once the server says it is ready for clients (it logs to stderr). */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let said = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("Server is ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`nats-server exited (${code}): ${said}`)));
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
