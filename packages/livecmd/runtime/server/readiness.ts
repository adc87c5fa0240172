import type { AppEngine } from "../model/appEngine.ts";

/** Where a load balancer asks whether this process should be sent requests. */
export const HEALTH_PATH = "/healthz";

/**
 * `/healthz`: 200 when this process can serve, 503 saying why not: it is draining (SIGTERM), its
 * database does not answer, or (on PostgreSQL) its change feed is not heard, so that writes from
 * other processes would not reach its subscriptions. A `GET` with no token: it tells nothing of
 * the app but whether it is up.
 */
export async function readiness(engine: AppEngine, draining: boolean): Promise<Response> {
  const problem = draining ? "draining: shutting down" : await databaseProblem(engine);
  return Response.json(problem ? { status: "unavailable", problem } : { status: "ok" }, {
    status: problem ? 503 : 200,
    headers: { "cache-control": "no-store" },
  });
}

async function databaseProblem(engine: AppEngine): Promise<string | undefined> {
  try {
    await engine.ready();
  } catch (error) {
    return `the database does not answer: ${(error as Error).message}`;
  }
  return engine.servingProblem();
}
