import { after, before, describe, test } from "node:test";
import type { App } from "../../packages/livecmd/runtime/index.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";
import {
  scenarioApp,
  schedulesScenario,
  SCHEMA,
  SEED,
  thresholdsScenario,
} from "../helpers/liveScenarios.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";

const server = postgresServer();

describe("PostgreSQL: live joins and filters", { skip: server.skip }, () => {
  let app: App;

  before(async () => {
    const url = await emptyDatabase(server.url!);
    psql(url, [...SCHEMA, ...SEED, "ANALYZE"].join(";\n"));
    app = scenarioApp(postgres(url));
  });
  after(() => app?.close());

  test("500 watched schedules joined to patients: a patient's rename re-runs only the schedule that lists them", async () => {
    await schedulesScenario(app);
  });

  test("1,000 watched 'orders over N': an order of 12 re-runs none; one of 50,000 re-runs those with N under 50,000", async () => {
    await thresholdsScenario(app);
  });
});
