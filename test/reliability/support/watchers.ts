import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Protocol } from "./exampleApp.ts";

/** One `notifications/resources/updated` as a client got it, and when (`performance.now()`). */
export interface Arrival {
  uri: string;
  at: number;
}

/**
 * A real SDK client of an HTTP endpoint watching URIs: one `subscriptions/listen` on
 * 2026-07-28, `resources/subscribe` per URI on the 2025 era. It records every update with the
 * time it arrived, and can vanish: every request it has open is cut (the sockets close under the
 * streams) and it never sends anything again, no unsubscribe, no DELETE of its session.
 */
export interface Watcher {
  readonly protocol: Protocol;
  readonly client: Client;
  readonly honored: readonly string[];
  readonly arrivals: Arrival[];
  /** The next update not yet taken, in arrival order; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<string>;
  /** 2026-07-28: how the listen ended (the SDK's `closed`); 2025 era: never settles. */
  readonly closed: Promise<string>;
  /** Cuts every open request of the client and refuses any new one. */
  vanish(): void;
  close(): Promise<void>;
}

export async function watch(
  url: URL,
  protocol: Protocol,
  uris: readonly string[],
  name = "watcher",
): Promise<Watcher> {
  const open = new Set<AbortController>();
  let gone = false;
  let pushStreamOpened!: () => void;
  const pushStreamOpen = new Promise<void>((resolve) => (pushStreamOpened = resolve));
  const cuttable = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    if (gone) throw new TypeError("fetch failed: the client vanished");
    const controller = new AbortController();
    open.add(controller);
    const response = await fetch(input, { ...init, signal: controller.signal });
    if (init?.method === "GET" && response.ok) pushStreamOpened();
    return response;
  };
  const client = new Client(
    { name, version: "0.0.0" },
    protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  // What the SDK reports about a stream that was cut is the point of vanish(), not a failure.
  client.onerror = () => undefined;
  const arrivals: Arrival[] = [];
  const waiting: (() => void)[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    arrivals.push({ uri: notification.params.uri, at: performance.now() });
    for (const wake of waiting.splice(0)) wake();
  });
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: cuttable }));
  let honored: string[];
  let closed: Promise<string>;
  let closeListen = async () => undefined as void;
  if (protocol === "2026-07-28") {
    const subscription = await client.listen({ resourceSubscriptions: [...uris] });
    honored = subscription.honoredFilter.resourceSubscriptions ?? [];
    closed = subscription.closed;
    closeListen = () => subscription.close();
  } else {
    await pushStreamOpen;
    honored = [];
    for (const uri of uris) {
      await client.subscribeResource({ uri });
      honored.push(uri);
    }
    closed = new Promise(() => undefined);
  }
  let taken = 0;
  return {
    protocol,
    client,
    honored,
    arrivals,
    closed,
    next(timeoutMs = 2000) {
      return new Promise((resolve, reject) => {
        const take = () => {
          const arrival = arrivals[taken];
          if (!arrival) return false;
          taken += 1;
          clearTimeout(timer);
          resolve(arrival.uri);
          return true;
        };
        const timer = setTimeout(
          () =>
            reject(new Error(`${name}: no notifications/resources/updated within ${timeoutMs} ms`)),
          timeoutMs,
        );
        if (take()) return;
        const wake = () => {
          if (!take()) waiting.push(wake);
        };
        waiting.push(wake);
      });
    },
    vanish() {
      gone = true;
      for (const controller of open) controller.abort();
    },
    async close() {
      if (!gone) await closeListen();
      await client.close();
    },
  };
}

/** Resolves once `condition()` holds, checking every few ms (for what happens when the server notices something). */
export async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) assert.fail(`${what}, within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * What livecmd writes on stderr between start() and stop(), one entry per write (a message may
 * span lines): its default `onerror` and its report of failing re-runs go there. Other output
 * passes through.
 */
export class StderrLines {
  readonly lines: string[] = [];
  #original: typeof process.stderr.write | undefined;

  start(): void {
    const original = process.stderr.write.bind(process.stderr);
    this.#original = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      if (text.startsWith("livecmd: ")) {
        this.lines.push(text.trimEnd());
        return true;
      }
      return (original as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean)(
        chunk,
        ...rest,
      );
    }) as typeof process.stderr.write;
  }

  stop(): void {
    if (this.#original) process.stderr.write = this.#original;
    this.#original = undefined;
  }

  take(): string[] {
    return this.lines.splice(0);
  }
}
