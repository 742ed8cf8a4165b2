// Runs every compiled test file (dist/test/**/*.test.js), each in its own process and process group, so one
// file's servers, browsers and workers can't leak into the next; exits non-zero on any failure.
//
// Options: --suffix=.stress.js (which files; default .test.js), --verbose (print every file's output), --timeout=
// <seconds> per file (default 240), --bail (stop at the first failing file: enough for mutation testing),
// --jobs=<n> (room for files at once, default the machine's cores), --alone=<a,b> (files whose path contains
// one of these run with no other file but the --beside ones: they time elections and leases, or compare
// latencies with a baseline), --beside=<a,b> (files that mostly wait on the real clock for minutes: each in a
// lane of its own, beside everything else), --except=<a,b> (leave out the files whose path contains one of
// these), --record=<file> (write each file's seconds there, as JSON, for test/durations.json). Other arguments
// keep only the files whose path contains one of them.
//
// Scheduling: a file's weight is what it starts (test/test-kinds.mjs: a browser 1.5, an hcd server or a
// nats-server 1, in-process only 0.5); files run while their weights fit in --jobs (one always runs), the
// longest first by test/durations.json, so the heavy files of a run never pile up on the cores while the
// light ones fill the room beside them.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kindOf, WEIGHTS } from "./test-kinds.mjs";

const root = "dist/test";
const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const suffix = option("suffix") ?? ".test.js";
const timeoutMs = Number(option("timeout") ?? 240) * 1000;
const jobs = Math.max(1, Number(option("jobs") ?? availableParallelism()));
const verbose = args.includes("--verbose");
const bail = args.includes("--bail");
const record = option("record");
const listOption = (name) => (option(name) ?? "").split(",").filter((t) => t !== "");
const alone = listOption("alone"),
  beside = listOption("beside"),
  except = listOption("except");
const only = args.filter((a) => !a.startsWith("--"));
function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith(suffix) ? [path] : [];
  });
}
const files = collect(root)
  .sort()
  .filter((f) => (only.length === 0 || only.some((o) => f.includes(o))) && !except.some((e) => f.includes(e)));

/** Seconds each file took alone, by its source path (test/…/x.test.ts); a file not in it is guessed from its kind. */
const durations = JSON.parse(readFileSync(fileURLToPath(new URL("./durations.json", import.meta.url)), "utf8"));
const GUESS = { browser: 15, server: 4, nats: 3, light: 0.5 };
const sourceOf = (file) => file.replace(/^dist\//, "").replace(/\.js$/, ".ts");
const kinds = new Map(files.map((file) => [file, kindOf(readFileSync(file, "utf8"))]));
const secondsOf = (file) => durations[sourceOf(file)] ?? GUESS[kinds.get(file)];
const weightOf = (file) => WEIGHTS[kinds.get(file)];

const hangReport = fileURLToPath(new URL("./hang-report.mjs", import.meta.url));
/** How long a file's process may stay up after its tests' summary before it is asked what holds it open. */
const LINGER_AFTER_SUMMARY_MS = 30_000;
/** The process groups of the files running now: ended with the runner. */
const groups = new Set();

/** Signals every process of a file's group (its node process and whatever it started that is still there). */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

/**
 * Runs one file to its end (or its timeout), collecting its output. A process still up well after its
 * tests' summary is held open by something its tests left behind: it is asked what (hang-report.mjs), then
 * ended, and the file fails. A file timed out gets SIGTERM (its browsers' and servers' own handlers close
 * them), then its whole group SIGKILL; whatever a file leaves in its group is ended when it exits.
 */
function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["--import", hangReport, file], {
      env: { ...process.env, FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    groups.add(child.pid);
    let out = "";
    let lingering = null;
    const collect = (chunk) => {
      out += chunk;
      if (lingering === null && /Total:\s+\d+[\s\S]*Duration:/.test(out)) {
        lingering = setTimeout(() => {
          out += `\n(still running ${LINGER_AFTER_SUMMARY_MS / 1000} s after its summary)\n`;
          child.kill("SIGUSR2");
          setTimeout(() => signalGroup(child.pid, "SIGKILL"), 5_000).unref();
        }, LINGER_AFTER_SUMMARY_MS);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            out += `\n(ended after the ${timeoutMs / 1000} s timeout)\n`;
            signalGroup(child.pid, "SIGTERM");
            setTimeout(() => signalGroup(child.pid, "SIGKILL"), 5_000).unref();
          }, timeoutMs)
        : null;
    child.on("close", (status) => {
      if (timer) clearTimeout(timer);
      if (lingering) clearTimeout(lingering);
      signalGroup(child.pid, "SIGKILL"); // what the file left behind
      groups.delete(child.pid);
      resolve({ status, out, seconds: (Date.now() - started) / 1000 });
    });
  });
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const pid of groups) signalGroup(pid, "SIGKILL");
    process.exit(130);
  });
}

let passed = 0,
  failed = 0,
  total = 0,
  stop = false;
const failures = [];
const measured = {};
async function runOne(file) {
  const run = await runFile(file);
  const p = Number(/Passed:\s+(\d+)/.exec(run.out)?.[1] ?? 0);
  const t = Number(/Total:\s+(\d+)/.exec(run.out)?.[1] ?? 0);
  total += t;
  passed += p;
  const ok = run.status === 0 && t > 0 && p === t;
  if (!ok) {
    failed += Math.max(1, t - p);
    failures.push(file);
  }
  measured[sourceOf(file)] = Math.round(run.seconds * 10) / 10;
  console.log(`${ok ? "ok  " : "FAIL"} ${file}  ${p}/${t}  ${run.seconds.toFixed(1)}s`);
  if (!ok || verbose)
    console.log(
      run.out
        .split("\n")
        .map((l) => "    " + l)
        .join("\n"),
    );
  if (!ok && bail) stop = true;
}

/** Runs `queue`'s files while their weights fit in `room` (one at least), longest first. */
async function schedule(queue, room) {
  const waiting = [...queue].sort((a, b) => secondsOf(b) - secondsOf(a));
  const running = new Set();
  let used = 0;
  while (!stop && (waiting.length > 0 || running.size > 0)) {
    let next;
    while (!stop && (next = waiting.findIndex((file) => running.size === 0 || used + weightOf(file) <= room)) >= 0) {
      const [file] = waiting.splice(next, 1);
      used += weightOf(file);
      const done = runOne(file).then(() => {
        used -= weightOf(file);
        running.delete(done);
      });
      running.add(done);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
  await Promise.all(running);
}

const started = Date.now();
const matches = (list) => (file) => list.some((text) => file.includes(text));
const besides = files.filter(matches(beside)).map((file) => runOne(file));
const others = files.filter((file) => !matches(beside)(file));
for (const file of others.filter(matches(alone))) if (!stop) await runOne(file);
await Promise.all([
  ...besides,
  schedule(
    others.filter((file) => !matches(alone)(file)),
    jobs,
  ),
]);
console.log(`\n${files.length} files, room for ${jobs} at a time, ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (failures.length) console.log(`failed files: ${failures.join(", ")}`);
console.log(`${passed} passed, ${failed} failed`);
if (record !== undefined) writeFileSync(record, JSON.stringify(Object.fromEntries(Object.entries(measured).sort()), null, 1) + "\n");
process.exit(failed === 0 && files.length > 0 ? 0 : 1);
