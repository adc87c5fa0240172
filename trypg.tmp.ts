import pg from "pg";
import { postgres } from "./packages/livecmd/runtime/db/postgres/postgres.ts";
import { readLines } from "./packages/livecmd-kit/cli/inspectReads.ts";
const url = "postgres://postgres@localhost/postgres?host=/tmp/filters-pg";
const admin = new pg.Client({ connectionString: url }); await admin.connect();
await admin.query("DROP DATABASE IF EXISTS tryf"); await admin.query("CREATE DATABASE tryf"); await admin.end();
const dburl = "postgres://postgres@localhost/tryf?host=/tmp/filters-pg";
const c = new pg.Client({ connectionString: dburl }); await c.connect();
await c.query(`CREATE TABLE patients (id integer PRIMARY KEY, name text);
CREATE TABLE appointments (id serial PRIMARY KEY, doctor_id integer, patient_id integer REFERENCES patients(id), day date);
CREATE INDEX ON appointments(doctor_id);
CREATE TABLE orders (id serial PRIMARY KEY, total numeric, status varchar(20), customer text, paid boolean, qty int);
INSERT INTO patients SELECT g, 'p'||g FROM generate_series(1,50) g;
INSERT INTO appointments (doctor_id, patient_id, day) SELECT g % 10, g % 50 + 1, date '2024-01-01' + g % 300 FROM generate_series(1,200) g;
INSERT INTO orders (total, status, customer, paid, qty) SELECT g * 10, CASE WHEN g % 2 = 0 THEN 'open' ELSE 'paid' END, 'c' || g, g % 3 = 0, g FROM generate_series(1, 100) g;
ANALYZE;`); await c.end();
const source = postgres(dburl, { log: (l) => console.log("LOG", l) });
const db = source.open(() => {});
const cases: [string, unknown[]][] = JSON.parse(process.argv[2]!);
for (const [sql, params] of cases) {
  const reads: any[] = [];
  const view = db.observedBy({ read: (r) => reads.push(...r) });
  try { await view.all(sql, ...(params as never[])); } catch (e) { console.log("ERR", (e as Error).message); }
  console.log("== " + sql + "  " + JSON.stringify(params));
  for (const line of readLines(reads, (k) => JSON.stringify(k))) console.log("   " + line);
}
await db.close();
