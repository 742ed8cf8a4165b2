// Runs every compiled test file (dist/test/**/*.test.js), each in its own process so that one
// file's servers, workers and LMDB handles cannot leak into the next. Exits non-zero on any failure.
// Options: --suffix=.stress.js (which files; default .test.js), --verbose (print every file's output,
// e.g. the figures of the stress tests), --timeout=<seconds> per file (default 240), --bail (stop at the
// first failing file: mutation testing only needs to know that some test fails). Other arguments keep
// only the files whose path contains one of them.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = "dist/test";
const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const suffix = option("suffix") ?? ".test.js";
const timeoutMs = Number(option("timeout") ?? 240) * 1000;
const verbose = args.includes("--verbose");
const bail = args.includes("--bail");
const only = args.filter((a) => !a.startsWith("--"));
function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith(suffix) ? [path] : [];
  });
}
const files = collect(root).sort().filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
let passed = 0, failed = 0, total = 0;
const failures = [];
for (const file of files) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [file], { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" }, timeout: timeoutMs > 0 ? timeoutMs : undefined });
  const out = (run.stdout ?? "") + (run.stderr ?? "");
  const p = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const t = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? 0);
  total += t; passed += p;
  const ok = run.status === 0 && t > 0 && p === t;
  if (!ok) { failed += Math.max(1, t - p); failures.push(file); }
  console.log(`${ok ? "ok  " : "FAIL"} ${file}  ${p}/${t}  ${((Date.now() - started) / 1000).toFixed(1)}s`);
  if (!ok || verbose) console.log(out.split("\n").map((l) => "    " + l).join("\n"));
  if (!ok && bail) break;
}
console.log(`\n${files.length} files`);
if (failures.length) console.log(`failed files: ${failures.join(", ")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && files.length > 0 ? 0 : 1);
