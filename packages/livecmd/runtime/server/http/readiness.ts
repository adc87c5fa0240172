import type { AppEngine } from "../../model/appEngine.ts";

/** Where a load balancer asks whether this process should be sent requests. */
export const HEALTH_PATH = "/healthz";

/** Whether an endpoint can serve, and if not, why. */
export type Readiness = { status: "ok" } | { status: "unavailable"; problem: string };

/** Where an endpoint is in its life. */
export type EndpointState = "starting" | "serving" | "draining";

const NOT_SERVING = {
  starting: "starting: not yet hearing the other processes that share its sessions",
  draining: "draining: shutting down",
} as const;

/**
 * Whether this process can serve: not while it is starting (on PostgreSQL, until it hears the
 * other replicas' news of the 2025 sessions they share) or draining (SIGTERM, `close()`), when
 * its database does not answer, or (on PostgreSQL) when its change feed is not heard, so that
 * writes from other processes would not reach its subscriptions.
 */
export async function readiness(engine: AppEngine, state: EndpointState): Promise<Readiness> {
  const problem = state === "serving" ? await databaseProblem(engine) : NOT_SERVING[state];
  return problem ? { status: "unavailable", problem } : { status: "ok" };
}

/**
 * `/healthz`'s answer: 200, or 503 saying why not. A `GET` with no token: it tells nothing of
 * the app but whether it is up.
 */
export function readinessAnswer(ready: Readiness): Response {
  return Response.json(ready, {
    status: ready.status === "ok" ? 200 : 503,
    headers: { "cache-control": "no-store" },
  });
}

async function databaseProblem(engine: AppEngine): Promise<string | undefined> {
  try {
    await engine.ready();
  } catch (error) {
    const { message } = error as Error;
    // livecmd's own errors name what failed (the bus, the capture); any other is the driver's.
    return message.startsWith(LIVECMD_PREFIX)
      ? message.slice(LIVECMD_PREFIX.length)
      : `the database does not answer: ${message}`;
  }
  return engine.servingProblem();
}

const LIVECMD_PREFIX = "livecmd: ";
