import Database from "better-sqlite3";
const db = new Database(":memory:");
db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b REAL); CREATE INDEX ta ON t(a);`);
for (const sql of ["SELECT * FROM t WHERE id = :id OR a = @a OR b = $b", "SELECT * FROM t WHERE a IN ('x', 'y', ?)", "SELECT * FROM t WHERE b = 1.5 AND id = 9223372036854775807"]) {
  console.log("== " + sql);
  const st = db.prepare("EXPLAIN " + sql);
  let rows: any;
  for (let n = 0; n < 5 && !rows; n++) for (const named of [[], [{id:null,a:null,b:null}]]) { try { rows = st.all(...new Array(n).fill(null), ...named); break; } catch (e) {} }
  for (const r of rows as any[]) console.log([r.addr, r.opcode, r.p1, r.p2, r.p3, JSON.stringify(r.p4), r.p5].join("\t"));
}
