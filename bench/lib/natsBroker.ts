import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { processCpuMs } from "./processCpu.ts";

/** What nats-server's `/varz` says of the whole server (the fields the bus bench reads). */
export interface BrokerTotals {
  /** Its resident memory, bytes. */
  mem: number;
  in_msgs: number;
  out_msgs: number;
  subscriptions: number;
}

/** One client connection, as `/connz` lists it (the fields the bus bench reads). */
export interface BrokerConnection {
  /** The name the client gave (livecmd's: `livecmd <pid>`). */
  name?: string;
  out_msgs: number;
  subscriptions: number;
}

/** Debian's nats-server with JetStream and its monitoring port, on 127.0.0.1, for one bench. */
export interface NatsBroker {
  readonly url: string;
  totals(): Promise<BrokerTotals>;
  connections(): Promise<BrokerConnection[]>;
  /** The messages its JetStream streams hold, all together (`/jsz`). */
  stored(): Promise<number>;
  /** Its user + system CPU time so far, ms (from /proc: clock ticks of 10 ms). */
  cpuMs(): number;
  /** The warnings and errors it logged so far (a slow consumer cut off, say). */
  complaints(): string[];
  /** Stops it and removes its store. */
  stop(): Promise<void>;
}

const BINARY = "/usr/sbin/nats-server";

/** Starts nats-server with a store of its own and resolves once it takes clients. */
export async function startNatsBroker(): Promise<NatsBroker> {
  const store = mkdtempSync(path.join(tmpdir(), "livecmd-bench-nats-"));
  const [port, monitor] = [await freePort(), await freePort()];
  const child = spawn(
    BINARY,
    ["-js", "-sd", store, "-a", "127.0.0.1", "-p", String(port), "-m", String(monitor)],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const complaints: string[] = [];
  const said = logLines(child, (line) => {
    if (/\[(WRN|ERR|FTL)\]/.test(line)) complaints.push(line);
  });
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(store, { recursive: true, force: true });
  };
  try {
    await said.ready;
  } catch (error) {
    await stop();
    throw error;
  }
  const monitoring = async <T>(page: string): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${monitor}/${page}`);
    return (await response.json()) as T;
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    totals: () => monitoring<BrokerTotals>("varz"),
    async connections() {
      const page = await monitoring<{ connections: BrokerConnection[] }>("connz?limit=4096");
      return page.connections;
    },
    async stored() {
      return (await monitoring<{ messages: number }>("jsz")).messages;
    },
    cpuMs: () => processCpuMs(child.pid!),
    complaints: () => [...complaints],
    stop,
  };
}

/**
 * Each line the server logs (to stderr) told to `line`, all its life (a pipe left unread would
 * stop it); `ready` resolves once it says it takes clients, and rejects if it exits before.
 */
function logLines(child: ChildProcess, line: (text: string) => void): { ready: Promise<void> } {
  const lines = createInterface({ input: child.stderr! });
  const ready = new Promise<void>((resolve, reject) => {
    const early: string[] = [];
    lines.on("line", (text) => {
      line(text);
      if (early.length < 50) early.push(text);
      if (text.includes("Server is ready")) resolve();
    });
    child.once("exit", (code) =>
      reject(new Error(`nats-server exited (${code}): ${early.join("\n")}`)),
    );
  });
  return { ready };
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
