// Runs every compiled test file (dist/test/**/*.test.js), each in its own process so that one
// file's servers, workers and LMDB handles cannot leak into the next. Exits non-zero on any failure.
// Options: --suffix=.stress.js (which files; default .test.js), --verbose (print every file's output,
// e.g. the figures of the stress tests), --timeout=<seconds> per file (default 240), --bail (stop at the
// first failing file: mutation testing only needs to know that some test fails), --jobs=<n> (files run
// at once, default 1: most files spend their time waiting on timers, sockets and child processes, not on
// the CPU, so a few at once shorten the run without starving each other), --alone=<a,b> (files whose path
// contains one of these run one at a time, with no other file but the --beside ones: the cluster tests,
// whose three nats-server and three nodes time elections and leases, and the tests that compare latencies
// with a baseline), --beside=<a,b> (files that mostly wait on the real clock for minutes: each starts at
// once in a lane of its own, beside everything else), --except=<a,b> (leave out the files whose path contains
// one of these). Other arguments keep only the files whose path contains one of them.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = "dist/test";
const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const suffix = option("suffix") ?? ".test.js";
const timeoutMs = Number(option("timeout") ?? 240) * 1000;
const jobs = Math.max(1, Number(option("jobs") ?? 1));
const verbose = args.includes("--verbose");
const bail = args.includes("--bail");
const listOption = (name) => (option(name) ?? "").split(",").filter((t) => t !== "");
const alone = listOption("alone"), beside = listOption("beside"), except = listOption("except");
const only = args.filter((a) => !a.startsWith("--"));
function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith(suffix) ? [path] : [];
  });
}
const files = collect(root).sort().filter((f) => (only.length === 0 || only.some((o) => f.includes(o))) && !except.some((e) => f.includes(e)));

const hangReport = fileURLToPath(new URL("./hang-report.mjs", import.meta.url));
/** How long a file's process may stay up after its tests' summary before it is asked what holds it open. */
const LINGER_AFTER_SUMMARY_MS = 30_000;

/**
 * Runs one file to its end (or its timeout), collecting its output. A process still up well after its
 * tests' summary is held open by something its tests left behind: it is asked what (hang-report.mjs), then
 * ended, and the file fails.
 */
function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["--import", hangReport, file], { env: { ...process.env, FORCE_COLOR: "0" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let lingering = null;
    const collect = (chunk) => {
      out += chunk;
      if (lingering === null && /Total:\s+\d+[\s\S]*Duration:/.test(out)) {
        lingering = setTimeout(() => {
          out += `\n(still running ${LINGER_AFTER_SUMMARY_MS / 1000} s after its summary)\n`;
          child.kill("SIGUSR2");
          setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
        }, LINGER_AFTER_SUMMARY_MS);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = timeoutMs > 0 ? setTimeout(() => { out += `\n(killed after the ${timeoutMs / 1000} s timeout)\n`; child.kill("SIGKILL"); }, timeoutMs) : null;
    child.on("close", (status) => { if (timer) clearTimeout(timer); if (lingering) clearTimeout(lingering); resolve({ status, out, seconds: (Date.now() - started) / 1000 }); });
  });
}

let passed = 0, failed = 0, total = 0, stop = false;
const failures = [];
/** Runs the files of `queue` (taken from its front) until it is empty or a --bail failure. */
async function worker(queue) {
  while (!stop && queue.length > 0) {
    const file = queue.shift();
    const run = await runFile(file);
    const p = Number(/Passed:\s+(\d+)/.exec(run.out)?.[1] ?? 0);
    const t = Number(/Total:\s+(\d+)/.exec(run.out)?.[1] ?? 0);
    total += t; passed += p;
    const ok = run.status === 0 && t > 0 && p === t;
    if (!ok) { failed += Math.max(1, t - p); failures.push(file); }
    console.log(`${ok ? "ok  " : "FAIL"} ${file}  ${p}/${t}  ${run.seconds.toFixed(1)}s`);
    if (!ok || verbose) console.log(run.out.split("\n").map((l) => "    " + l).join("\n"));
    if (!ok && bail) stop = true;
  }
}
const started = Date.now();
const matches = (list) => (file) => list.some((text) => file.includes(text));
const besides = files.filter(matches(beside)).map((file) => worker([file]));
const others = files.filter((file) => !matches(beside)(file));
await worker(others.filter(matches(alone)));
const rest = others.filter((file) => !matches(alone)(file));
await Promise.all([...besides, ...Array.from({ length: Math.min(jobs, rest.length) }, () => worker(rest))]);
console.log(`\n${files.length} files, ${jobs} at a time, ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (failures.length) console.log(`failed files: ${failures.join(", ")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && files.length > 0 ? 0 : 1);
