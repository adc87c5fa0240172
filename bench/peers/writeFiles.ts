/**
 * The floor for codegen's last stage: writing the files it generated, as they are, into an
 * emptied folder beside them, one `writeFileSync` each (as `writeOutputs` does). What any
 * generator of the same outputs pays the file system, whatever it did to make them. Timed in the
 * process, from the first write to the last, the reads that get the bytes left out:
 * `node --import tsx bench/peers/writeFiles.ts <generated folder> <emptied folder>`.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { listFiles } from "../../packages/livecmd-kit/generator/output/writeOutputs.ts";

const [from, to] = process.argv.slice(2);
if (!from || !to) throw new Error("usage: writeFiles.ts <generated folder> <emptied folder>");
const files = (await listFiles(from)).map((file) => ({
  file,
  bytes: readFileSync(path.join(from, file), "utf8"),
}));
rmSync(to, { recursive: true, force: true });
const started = performance.now();
for (const folder of new Set(files.map(({ file }) => path.dirname(path.join(to, file)))))
  mkdirSync(folder, { recursive: true });
for (const { file, bytes } of files) writeFileSync(path.join(to, file), bytes);
const ms = performance.now() - started;
rmSync(to, { recursive: true, force: true });
process.stdout.write(`wrote ${files.length} files in ${ms.toFixed(1)} ms\n`);
