import assert from "node:assert/strict";
import { command, defineApp, type App } from "../../packages/livecmd/runtime/index.ts";
import type { DatabaseSource } from "../../packages/livecmd/runtime/db/open/openDatabase.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";

/**
 * Issue 34's two scenarios, the same on SQLite and PostgreSQL (test/unit/live-scenarios.test.ts,
 * test/postgres/live-scenarios.test.ts): doctors' schedules that list their patients by name (a
 * join through a foreign key), and "orders over N" for many N (a range filter).
 */
export const DOCTORS = 500;
export const PATIENTS = DOCTORS * 4;
/** Thresholds 1,000, 2,000 ... 1,000,000: one watch each. */
export const THRESHOLDS = Array.from({ length: 1000 }, (_, i) => (i + 1) * 1000);

export const SCHEMA = [
  "CREATE TABLE patients (id integer PRIMARY KEY, name text NOT NULL)",
  "CREATE TABLE appointments (id integer PRIMARY KEY, doctor_id integer NOT NULL, patient_id integer NOT NULL REFERENCES patients (id), day text NOT NULL)",
  "CREATE INDEX appointments_by_doctor ON appointments (doctor_id)",
  "CREATE TABLE orders (id integer PRIMARY KEY, total numeric NOT NULL)",
];

/**
 * Patients 1..4d for `doctors` doctors; doctor d sees patients 4d-3 .. 4d (each patient listed by
 * one doctor); an order of 100. The bench seeds more doctors (bench/rows.bench.ts).
 */
export function clinicSeed(doctors: number): string[] {
  const patients = doctors * 4;
  return [
    `WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${patients})
     INSERT INTO patients SELECT n, 'patient ' || n FROM g`,
    `WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${patients})
     INSERT INTO appointments SELECT n, (n + 3) / 4, n, '2026-05-0' || (n % 5 + 1) FROM g`,
    "INSERT INTO orders VALUES (1, 100)",
  ];
}

export const SEED = clinicSeed(DOCTORS);

const schedule = command({ live: true }, async (ctx, doctor: number) =>
  ctx.db.all(
    "SELECT a.id, a.day, p.name FROM appointments a JOIN patients p ON p.id = a.patient_id WHERE a.doctor_id = ? ORDER BY a.day, a.id",
    doctor,
  ),
);
const ordersOver = command({ live: true }, async (ctx, total: number) =>
  ctx.db.all("SELECT id, total FROM orders WHERE total > ? ORDER BY id", total),
);

export function scenarioApp(database: DatabaseSource): App {
  return defineApp({
    name: "clinic",
    commands: { schedule, ordersOver },
    agent: { grant: [schedule, ordersOver] },
    database,
  });
}

/** Re-runs caused by `write`, once everything it caused has run. */
async function rerunsOf(
  app: App,
  live: LiveRegistry,
  write: () => Promise<unknown>,
): Promise<number> {
  const before = live.stats().reruns;
  await write();
  await app.db.caughtUp();
  await live.settled();
  return live.stats().reruns - before;
}

/** 500 schedules watched: renaming a patient re-runs the one schedule that lists them, and renaming nobody's, none. */
export async function schedulesScenario(app: App): Promise<void> {
  const live = new LiveRegistry(app, { onError: () => {} });
  const told: string[] = [];
  for (let doctor = 1; doctor <= DOCTORS; doctor += 1)
    await live.add("schedule", [doctor], { uri: `s://${doctor}`, notify: (uri) => told.push(uri) });
  const rename = (id: number, name: string) => () =>
    app.db.run("UPDATE patients SET name = ? WHERE id = ?", name, id);
  assert.equal(await rerunsOf(app, live, rename(1234, "renamed")), 1);
  assert.deepEqual(told, [`s://${Math.ceil(1234 / 4)}`]);
  await app.db.run("INSERT INTO patients VALUES (?, 'nobody''s')", PATIENTS + 1);
  assert.equal(await rerunsOf(app, live, rename(PATIENTS + 1, "still nobody's")), 0);
  // An appointment moved from doctor 1 to doctor 2: both schedules, and then a rename of its patient reaches doctor 2's.
  assert.equal(
    await rerunsOf(app, live, () =>
      app.db.run("UPDATE appointments SET doctor_id = 2 WHERE id = 1"),
    ),
    2,
  );
  told.length = 0;
  assert.equal(await rerunsOf(app, live, rename(1, "moved")), 1);
  assert.deepEqual(told, ["s://2"]);
  live.close();
}

/** 1,000 "orders over N" watched: an order of 12 re-runs none, an order of 50,000 those with N under 50,000. */
export async function thresholdsScenario(app: App): Promise<void> {
  const live = new LiveRegistry(app, { onError: () => {} });
  for (const total of THRESHOLDS)
    await live.add("ordersOver", [total], { uri: `o://${total}`, notify: () => {} });
  const order = (id: number, total: number) => () =>
    app.db.run("INSERT INTO orders VALUES (?, ?)", id, total);
  assert.equal(await rerunsOf(app, live, order(2, 12)), 0);
  const under = THRESHOLDS.filter((threshold) => threshold < 50_000).length;
  assert.equal(await rerunsOf(app, live, order(3, 50_000)), under);
  // A change of total re-runs the readers of the old value and of the new: under 50,000 or under 2,500.
  const lowered = () => app.db.run("UPDATE orders SET total = 2500 WHERE id = 3");
  assert.equal(await rerunsOf(app, live, lowered), under);
  const raised = () => app.db.run("UPDATE orders SET total = 2000000 WHERE id = 3");
  assert.equal(await rerunsOf(app, live, raised), THRESHOLDS.length);
  live.close();
}
