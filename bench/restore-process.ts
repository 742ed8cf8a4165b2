// The restore as a server starts: a fresh process opens the worker pool on a DATA_DIR (as `npm start`
// does) and prints one JSON line: how long the open took, and this process's resident memory before it
// (node and hcd's modules loaded) and with the pool open. The scale bench runs it beside its own,
// in-process measurement, which shares its process with what the bench did before (an in-process pool
// of every check, opened and closed).
// Run: node dist/bench/restore-process.js <dataDir> <shards> <startAt>
import { createWorkerPool } from "../app/pools.ts";
import { memoryOf, msSince } from "./measure.ts";
import type { Memory } from "./measure.ts";

/** What the restore process prints. */
export type RestoreReport = { readonly seconds: number; readonly before: Memory; readonly loaded: Memory };

const [dataDir, shards, startAt] = process.argv.slice(2);
if (dataDir === undefined || !(Number(shards) >= 1) || !Number.isFinite(Number(startAt))) {
  throw new Error("usage: restore-process.js <dataDir> <shards> <startAt>");
}
const before = memoryOf();
const started = process.hrtime.bigint();
const pool = await createWorkerPool({
  dataDir,
  shards: Number(shards),
  durability: "flush",
  clock: "virtual",
  startAt: Number(startAt),
  notify: { siteRoot: "http://localhost", allowPrivateIps: false, smtpUrl: null },
});
const seconds = msSince(started) / 1000;
const loaded = memoryOf();
await pool.close();
const report: RestoreReport = { seconds, before, loaded };
console.log(JSON.stringify(report));
