import { createHmac, timingSafeEqual } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type JSONRPCRequest,
} from "@modelcontextprotocol/server";
import { updatedParams } from "../../model/resultMeta.ts";
import { SSE_RETRY_MS } from "../streams/eventStream.ts";

/**
 * What a 2026-07-28 listen's event ids carry, so that any replica can resume the listen without
 * holding anything of it: the listen request itself (its id, envelope and filter) and, for each
 * URI, a digest of the result its client was last told of. The SDK's client resumes a listen
 * stream that drops with `GET` and `Last-Event-ID` (after the `retry:` the stream was primed
 * with); the replica it reaches re-opens the listen from the id, re-runs each URI, and notifies
 * those whose result is not the one the client was told of.
 *
 * An id is `livecmd-listen.<request>.<digests>.<mac>`: the request as compressed JSON, the
 * digests (a keyed HMAC of each result, so an id that leaks lets no one test guesses of a
 * result), and an HMAC over both bound to the principal, so that no client forges one and no
 * other principal's id is taken. It gives nothing a read would not: the URIs are re-resolved
 * with the resuming request's principal, as a new listen's are. The key is the one confirmations
 * sign with (`requestStateKey`, `LIVECMD_REQUEST_STATE_KEY`), so replicas sharing it resume each
 * other's listens; an id from another key is refused and the client opens its listen again.
 */
const PREFIX = "livecmd-listen.";

/**
 * The longest id a listen's events carry: it comes back as a header, which nginx bounds to 8 KB
 * a line by default and Node.js to 16 KB in all. A longer one (a listen of many long URIs) is not
 * sent, and its client opens the listen again when the stream drops.
 */
const MAX_LISTEN_EVENT_ID = 4096;

/** Bytes of a result's digest: 96 bits, so that two results never pass for one another. */
const DIGEST_BYTES = 12;
const DIGEST_CHARS = Math.ceil((DIGEST_BYTES * 4) / 3);

/** The listen request an id carries: enough to serve it again. */
interface CarriedListen {
  /** The listen request's id: the client's subscription id. */
  readonly i: string | number;
  /** Its protocol version and client capabilities (the envelope the SDK requires). */
  readonly v: string;
  readonly c: unknown;
  /** Its filter. */
  readonly f: Record<string, unknown>;
}

/** Whether a `Last-Event-ID` is a listen's (a 2025 session's GET stream never carries one). */
function isListenEventId(id: string | null): boolean {
  return id?.startsWith(PREFIX) ?? false;
}

/**
 * Whether the request resumes a 2026-07-28 listen: the SDK's client re-opens a dropped listen
 * stream as a `GET` with its last event id, and no session (a 2025 session's GET carries its
 * `Mcp-Session-Id`).
 */
export function isListenResumption(request: Request): boolean {
  return (
    request.method === "GET" &&
    !request.headers.has("mcp-session-id") &&
    isListenEventId(request.headers.get("last-event-id"))
  );
}

/** A listen to resume: the request to serve again, and what its client was told of each URI. */
export interface ResumedListen {
  readonly message: JSONRPCRequest;
  readonly told: ReadonlyMap<string, string>;
}

export class ListenResumes {
  readonly #key: Buffer;

  constructor(secret: Uint8Array | string) {
    // Its own key, so that no listen id is ever a valid confirmation state or the reverse.
    this.#key = createHmac("sha256", secret).update("livecmd listen event id").digest();
  }

  /** What a result is recorded as in the ids. */
  digest(result: string | undefined): string {
    return this.#mac(`result\0${result ?? ""}`)
      .subarray(0, DIGEST_BYTES)
      .toString("base64url");
  }

  /**
   * The ids of one open listen, of `principal` (a client id; undefined without auth): `message`,
   * the listen as served, and the digests its client was told of, updated as it is told.
   */
  ids(message: JSONRPCRequest, principal: string | undefined): ListenIds {
    const params = message.params as {
      _meta?: Record<string, unknown>;
      notifications: Record<string, unknown>;
    };
    const carried: CarriedListen = {
      i: message.id,
      v: params._meta?.[PROTOCOL_VERSION_META_KEY] as string,
      c: params._meta?.[CLIENT_CAPABILITIES_META_KEY] ?? {},
      f: params.notifications,
    };
    const request = deflateRawSync(JSON.stringify(carried)).toString("base64url");
    return new ListenIds(
      (digests) => {
        const signed = `${request}.${digests}`;
        return `${PREFIX}${signed}.${this.#signature(signed, principal)}`;
      },
      (result) => this.digest(result),
    );
  }

  /**
   * The listen a `Last-Event-ID` resumes for `principal`, or undefined when it is no listen id,
   * was altered or forged, was signed with another key or is another principal's.
   */
  resumed(lastEventId: string | null, principal: string | undefined): ResumedListen | undefined {
    if (!isListenEventId(lastEventId)) return undefined;
    const parts = lastEventId!.slice(PREFIX.length).split(".");
    // Exactly the three parts an id is made of: anything after them was not signed.
    if (parts.length !== 3) return undefined;
    const [request, digests, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.#signature(`${request}.${digests}`, principal));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let carried: CarriedListen;
    try {
      carried = JSON.parse(inflateRawSync(Buffer.from(request, "base64url")).toString("utf8"));
    } catch {
      return undefined;
    }
    const uris = (carried.f.resourceSubscriptions as string[] | undefined) ?? [];
    if (digests.length !== uris.length * DIGEST_CHARS) return undefined;
    const told = new Map(
      uris.map((uri, at) => [uri, digests.slice(at * DIGEST_CHARS, (at + 1) * DIGEST_CHARS)]),
    );
    return {
      message: {
        jsonrpc: "2.0",
        id: carried.i,
        method: "subscriptions/listen",
        params: {
          _meta: {
            [PROTOCOL_VERSION_META_KEY]: carried.v,
            [CLIENT_CAPABILITIES_META_KEY]: carried.c,
          },
          notifications: carried.f,
        },
      },
      told,
    };
  }

  #signature(signed: string, principal: string | undefined): string {
    return this.#mac(`listen\0${principal ?? ""}\0${signed}`).toString("base64url");
  }

  #mac(text: string): Buffer {
    return createHmac("sha256", this.#key).update(text).digest();
  }
}

/**
 * One open listen's event ids: the digest its client was told of, per URI in the order the
 * listen holds them, advanced for a URI only once its update is on the stream.
 */
export class ListenIds {
  readonly #sign: (digests: string) => string;
  readonly #digest: (result: string | undefined) => string;
  readonly #told = new Map<string, string>();

  constructor(sign: (digests: string) => string, digest: (result: string | undefined) => string) {
    this.#sign = sign;
    this.#digest = digest;
  }

  /** The client was told of `uri` when its result was `result` (or, for the baseline, it will read it). */
  told(uri: string, result: string | undefined): void {
    this.#told.set(uri, this.#digest(result));
  }

  /** The id to send now, or undefined when it would be too long to come back. */
  current(): string | undefined {
    const id = this.#sign([...this.#told.values()].join(""));
    return id.length <= MAX_LISTEN_EVENT_ID ? id : undefined;
  }
}

/**
 * The listen's event stream with resumable ids: primed with the current id (SEP-1699: an id and
 * the `retry:` delay), after `updates` first (a resumed listen's changed URIs), and each
 * `resources/updated` the SDK writes stamped with `versionOf(uri)` then (the SDK's
 * bus carries the URI alone, and principals watching one URI may read different results) and
 * followed by an id event recording that its client was told of that result: the client reads
 * after receiving it, so it sees that result or a later one. An id event comes after the update
 * it records, so a stream cut between the two resumes from the older id and tells the update
 * again, never the reverse.
 */
export function resumableStream(
  response: Response,
  listen: {
    id: string | number;
    ids: ListenIds;
    resultOf: (uri: string) => string | undefined;
    versionOf: (uri: string) => string | undefined;
  },
  updates: readonly string[],
): Response {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const idEvent = (retry = "") => {
    const id = listen.ids.current();
    return encoder.encode(`${id ? `id: ${id}\n` : ""}${retry}data: \n\n`);
  };
  let pending = "";
  const body = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        for (const uri of updates) {
          const result = listen.resultOf(uri);
          controller.enqueue(encoder.encode(updatedEvent(listen.id, uri, listen.versionOf(uri))));
          listen.ids.told(uri, result);
        }
        controller.enqueue(idEvent(`retry: ${SSE_RETRY_MS}\n`));
      },
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        for (let end = pending.indexOf("\n\n"); end >= 0; end = pending.indexOf("\n\n")) {
          const event = pending.slice(0, end + 2);
          pending = pending.slice(end + 2);
          const updated = updatedIn(event);
          if (!updated) {
            controller.enqueue(encoder.encode(event));
            continue;
          }
          const result = listen.resultOf(updated.params.uri);
          const version = listen.versionOf(updated.params.uri);
          controller.enqueue(encoder.encode(stamped(event, updated, version)));
          listen.ids.told(updated.params.uri, result);
          controller.enqueue(idEvent());
        }
      },
      flush(controller) {
        if (pending) controller.enqueue(encoder.encode(pending));
      },
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

interface UpdatedMessage {
  method: "notifications/resources/updated";
  params: { uri: string; _meta?: Record<string, unknown> };
}

/** A `resources/updated` for `uri` on listen `id`, framed as the SDK frames its own. */
function updatedEvent(id: string | number, uri: string, version: string | undefined): string {
  const { _meta, ...params } = updatedParams(uri, version);
  const notification = {
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { ...params, _meta: { ..._meta, [SUBSCRIPTION_ID_META_KEY]: id } },
  };
  return `event: message\ndata: ${JSON.stringify(notification)}\n\n`;
}

/** The `resources/updated` an SSE event carries, or undefined for any other event. */
function updatedIn(event: string): UpdatedMessage | undefined {
  const data = /^data: (.*)$/m.exec(event)?.[1];
  if (!data?.includes("notifications/resources/updated")) return undefined;
  const message = JSON.parse(data) as { method?: string; params?: { uri?: unknown } };
  return message.method === "notifications/resources/updated" &&
    typeof message.params?.uri === "string"
    ? (message as UpdatedMessage)
    : undefined;
}

/** The SDK's `event` of `updated`, its `_meta` given `version`. */
function stamped(event: string, updated: UpdatedMessage, version: string | undefined): string {
  const { _meta } = updatedParams(updated.params.uri, version);
  if (!_meta) return event;
  const message = {
    ...updated,
    params: { ...updated.params, _meta: { ...updated.params._meta, ..._meta } },
  };
  return event.replace(/^data: .*$/m, () => `data: ${JSON.stringify(message)}`);
}
