import { describe, test } from "node:test";
import {
  scenarioApp,
  schedulesScenario,
  SCHEMA,
  SEED,
  thresholdsScenario,
} from "../helpers/liveScenarios.ts";
import { SQLITE_DRIVERS, type SqliteDriver } from "../helpers/sqliteDrivers.ts";

function clinic(driver: SqliteDriver) {
  return scenarioApp(() => {
    const connection = driver.open(":memory:");
    for (const sql of [...SCHEMA, ...SEED]) connection.exec(sql);
    return connection;
  });
}

for (const driver of SQLITE_DRIVERS)
  describe(`live joins and filters on ${driver.name}`, { skip: driver.skip }, () => {
    test("500 watched schedules joined to patients: a patient's rename re-runs only the schedule that lists them", async () => {
      const app = clinic(driver);
      await schedulesScenario(app);
      await app.close();
    });

    test("1,000 watched 'orders over N': an order of 12 re-runs none; one of 50,000 re-runs those with N under 50,000", async () => {
      const app = clinic(driver);
      await thresholdsScenario(app);
      await app.close();
    });
  });
