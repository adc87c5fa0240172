import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { App } from "../../model/app.ts";
import { oncePerTurn } from "../../live/oncePerTurn.ts";
import { cutText } from "../../text/cutText.ts";
import { HeldByToken } from "../auth/heldByToken.ts";
import { buildServer } from "../methods/buildServer.ts";
import { Activity } from "../served/activity.ts";
import { corsPolicy } from "./corsPolicy.ts";
import { isEventStream, whenStreamEnds } from "../streams/eventStream.ts";
import { DEFAULT_SESSION_IDLE_MS } from "./httpDefaults.ts";
import { frontDoor, originAllowed, type FrontOptions } from "./httpFront.ts";
import { isLoopback } from "./ownHostNames.ts";
import { LegacyHttpSessions } from "../sessions/legacyHttpSessions.ts";
import type { FetchOptions, McpHandler, McpHandlerOptions } from "./mcpHandler.ts";
import { nodeFace, type NodeHandler } from "./nodeFace.ts";
import { endpointClosed, internalError } from "../errors/frontDoorErrors.ts";
import { errorResponse } from "../errors/protocolErrors.ts";
import { readiness, type EndpointState, type Readiness } from "./readiness.ts";
import { asNewRequest } from "../log/requestContext.ts";
import { HttpListens } from "../listens/httpListens.ts";
import { ListenResumes } from "../listens/listenResume.ts";
import { routeByEra } from "../sdkAdapter/index.ts";
import { MAX_LOG_MESSAGE } from "../log/serverLog.ts";
import { ServedApp, type LiveStatus } from "../served/servedApp.ts";

/** How long a shutdown waits for the requests in progress to finish. */
export const DRAIN_MS = 10_000;

/**
 * The app's Streamable HTTP endpoint, whoever owns the listener (`mcpHandler`, `serveHttp`).
 * Requests pass CORS and the front door first (`frontDoor`: the client's address, Host, Origin,
 * method, bearer token); then 2026-07-28 requests go to the SDK's per-request handler, whose
 * listen streams receive `list_changed` and `resources/updated` through its event bus
 * (`HttpListens` narrows and counts them), and 2025-era requests go to sessions bound to their
 * principal (`LegacyHttpSessions`).
 */
export class HttpEndpoint implements McpHandler {
  readonly live: LiveStatus;
  readonly node: NodeHandler;
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #modern: McpHttpHandler;
  readonly #legacy: LegacyHttpSessions;
  readonly #listens: HttpListens;
  readonly #held: HeldByToken;
  readonly #stopWatchingGrants: () => void;
  readonly #front: (request: Request) => Promise<Response>;
  /**
   * The requests in progress, until answered (an event stream: until it ends), so that a
   * shutdown lets them finish; not the streams that stand open (`standsOpen`), which it ends.
   * Through `node`, a request counts from when it is handed over (its headers, unless a body
   * parser before the endpoint read it first), while its body is read.
   */
  readonly #inProgress = new Activity();
  #state: EndpointState | "closed" = "starting";
  #closing: Promise<void> | undefined;

  /** `options` as `checkEndpointOptions` passed them. */
  constructor(app: App, options: McpHandlerOptions) {
    const served = (this.#served = new ServedApp(app, options));
    served.sayCapture();
    const onerror = (this.#onerror = (error: Error) =>
      served.onerror(
        error.message.length > MAX_LOG_MESSAGE
          ? new Error(cutText(error.message, MAX_LOG_MESSAGE))
          : error,
      ));
    const held = (this.#held = new HeldByToken(options.auth, options.publicUrl, onerror));
    const modern = (this.#modern = createMcpHandler(() => buildServer(served, held), {
      legacy: "reject",
      onerror: served.refusals.or(onerror),
      // Above livecmd's own limits, which answer first with -32602 and data.limit.
      maxSubscriptions: served.room.limits.listensTotal + 1,
    }));
    this.#stopWatchingGrants = served.engine.onGrantsChanged(() => {
      if (served.catalog.hasReadableCommands) modern.notify.resourcesChanged();
      modern.notify.toolsChanged();
    });
    const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.#legacy = new LegacyHttpSessions(
      served,
      onerror,
      idleMs,
      held,
      served.engine.sharedSessions(),
    );
    void this.#legacy.ready().then(() => {
      if (this.#state === "starting") this.#state = "serving";
    });
    // The bus delivers by exact URI to every listen holding it, which is every subscriber of it:
    // the listens publish each URI once. The bus carries no version: each listen's stream stamps
    // its own, since principals watching one URI may read different results.
    this.#listens = new HttpListens(
      served.room,
      oncePerTurn((uri) => modern.notify.resourceUpdated(uri)),
      held,
      new ListenResumes(served.stateKey),
    );
    this.#front = this.#frontOf(frontOptions(options, onerror));
    this.live = served.room.registry;
    this.node = nodeFace(
      (request) => this.#serve(request),
      onerror,
      () => this.#inProgress.begin(),
    );
  }

  readonly fetch = (request: Request, options?: FetchOptions): Promise<Response> =>
    asNewRequest(() => this.#serve(request), options?.remote);

  /** Resolves once this process hears the others sharing its 2025-era sessions (PostgreSQL). */
  heard(): Promise<void> {
    return this.#legacy.ready();
  }

  readiness(): Promise<Readiness> {
    return readiness(this.#served.engine, this.#state === "closed" ? "draining" : this.#state);
  }

  /**
   * `McpHandler.close`; the server that owns the listener passes `arrived`, which resolves once
   * no connection it accepted may still bring a request: until then the endpoint still serves.
   */
  close(options?: { drainMs?: number }, arrived?: Promise<void>): Promise<void> {
    return (this.#closing ??= this.#drain(options?.drainMs ?? DRAIN_MS, arrived));
  }

  /** CORS, then the front door, then the era's handler. */
  #frontOf(options: FrontOptions): (request: Request) => Promise<Response> {
    const cors = corsPolicy(originAllowed(options));
    const front = frontDoor(
      options,
      routeByEra({
        modern: (request, read, auth) =>
          this.#listens.fetch(request, this.#modern.fetch, read, auth),
        legacy: (request, auth) => this.#legacy.fetch(request, auth),
      }),
    );
    return (request) => cors(request, () => front(request));
  }

  /** One request, counted in progress until it is answered (an event stream: until it ends). */
  async #serve(request: Request): Promise<Response> {
    if (this.#state === "closed") return errorResponse(503, endpointClosed());
    const done = this.#inProgress.begin();
    try {
      const response = this.#endsConnectionWhileDraining(await this.#front(request));
      if (!isEventStream(response) || standsOpen(request)) {
        done();
        return response;
      }
      return whenStreamEnds(response, done);
    } catch (error) {
      done();
      this.#onerror(error instanceof Error ? error : new Error(String(error)));
      return errorResponse(500, internalError());
    }
  }

  /**
   * While draining, an answer ends its connection (`Connection: close`, which the SDK's event
   * streams would otherwise hold open as keep-alive): no further request comes on it.
   */
  #endsConnectionWhileDraining(response: Response): Response {
    if (this.#state !== "draining") return response;
    const headers = new Headers(response.headers);
    headers.set("connection", "close");
    const { status, statusText } = response;
    return new Response(response.body, { status, statusText, headers });
  }

  async #drain(drainMs: number, arrived?: Promise<void>): Promise<void> {
    this.#state = "draining";
    // Waiting watch calls answer now: their clients call again, behind a balancer elsewhere.
    this.#served.room.drain();
    this.#stopWatchingGrants();
    this.#held.close();
    // 2025 GET streams end first: their clients reconnect (to another replica) meanwhile.
    this.#legacy.endStreams();
    await arrived;
    // Requests in progress finish while the handler and sessions still serve them...
    await this.#inProgress.finished(drainMs);
    this.#state = "closed";
    // ...then listens end gracefully, and whatever instance is still serving is closed.
    await this.#modern.close();
    // One tick lets the graceful end of open listen streams reach the clients before the
    // server's sockets go.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await this.#legacy.close();
    this.#listens.closeAll();
    this.#served.close();
  }
}

/**
 * Options a caller can get wrong, checked before anything is opened: an error that says what
 * to pass instead.
 */
export function checkEndpointOptions(options: McpHandlerOptions): void {
  const { sessionIdleMs, publicUrl, auth } = options;
  if (sessionIdleMs !== undefined && !(sessionIdleMs > 0))
    throw new Error(
      `livecmd: sessionIdleMs must be a positive number of milliseconds, got ${sessionIdleMs}`,
    );
  if (publicUrl !== undefined && !(publicUrl instanceof URL))
    throw new Error(
      `livecmd: publicUrl must be a URL, got ${JSON.stringify(publicUrl)}; pass new URL("https://…/mcp")`,
    );
  if (auth) return;
  if (publicUrl && !isThisMachine(publicUrl.hostname))
    throw answersOtherMachines(
      `the public URL ${publicUrl.href} is where clients on other machines reach this endpoint`,
      "leave the public URL out",
    );
  const elsewhere = options.allowedHosts?.find((host) => !isThisMachine(host));
  if (elsewhere !== undefined)
    throw answersOtherMachines(
      `the allowed host ${elsewhere} is a name clients on other machines reach this endpoint by`,
      "allow only names of this machine (localhost, *.localhost)",
    );
}

/** Whether `host` names this machine alone: loopback, or a name under `.localhost` (RFC 6761). */
function isThisMachine(host: string): boolean {
  return isLoopback(host) || host.toLowerCase().endsWith(".localhost");
}

/** An endpoint without auth told it is reached from other machines: what to do instead. */
function answersOtherMachines(said: string, orElse: string): Error {
  return new Error(
    `livecmd: ${said} (through a proxy), and it has no auth: every granted command would be open to them. Pass auth (livecmd serve --tokens FILE, or --issuer URL --audience AUD; mounted: mcpHandler(app, { auth: staticTokens("tokens.txt") })), or ${orElse} to serve this machine alone`,
  );
}

/**
 * The streams a request opens that stand open until a shutdown ends them: a 2025 session's GET
 * stream, a 2026-07-28 listen (its method is in a header the SDK holds to the body).
 */
function standsOpen(request: Request): boolean {
  return request.method === "GET" || request.headers.get("mcp-method") === "subscriptions/listen";
}

function frontOptions(options: McpHandlerOptions, onerror: (error: Error) => void): FrontOptions {
  return {
    resource: options.publicUrl,
    auth: options.auth,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
    onerror,
  };
}
