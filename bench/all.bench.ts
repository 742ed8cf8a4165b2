// `npm run bench`: every scenario, each in its own process (so memory and CPU figures don't leak from one
// into the next), then one summary table (scenario, figure, same-run baseline, ratio, target, pass/miss),
// appended with date and machine to bench/RESULTS.md. The scale bench keeps its store for the startup bench.
// Env: HCD_BENCH_ONLY=pings,mixed (a subset); HCD_BENCH_SCALE=100000 (a quick run); see each bench for more.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { msSince } from "./measure.ts";
import { appendResults, printSummary } from "./report.ts";
import type { ScenarioResult } from "./report.ts";

const SCENARIOS = [
  "wheel",
  "engine",
  "store",
  "pings",
  "writes",
  "pingcpu",
  "tail",
  "mixed",
  "scale",
  "startup",
  "simulate",
  "dashboard",
] as const;
type Scenario = (typeof SCENARIOS)[number];

/** Runs one scenario's script in a child process; returns its result, or a failed row when it did not finish. */
async function runScenario(name: Scenario, env: NodeJS.ProcessEnv, handOverDir: string): Promise<ScenarioResult> {
  const script = fileURLToPath(new URL(`./${name}.bench.js`, import.meta.url));
  const handOver = join(handOverDir, `${name}.json`);
  const flags = name === "scale" ? ["--expose-gc"] : [];
  let stderrTail = "";
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [...flags, script], {
      env: { ...env, HCD_BENCH_FIGURES: handOver },
      stdio: ["ignore", "inherit", "pipe"],
    });
    child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString()).slice(-4000);
    });
    child.once("exit", (exitCode) => resolve(exitCode));
  });
  if (code === 0 && existsSync(handOver)) return JSON.parse(readFileSync(handOver, "utf8")) as ScenarioResult;
  const reason = stderrTail
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("hcd bench:"))
    .slice(-6);
  return {
    scenario: name,
    figures: [
      {
        scenario: name,
        figure: `the run failed (exit code ${code})`,
        value: Number.NaN,
        unit: "",
        target: { op: "<=", value: 0, on: "value" },
      },
    ],
    details: ["The run failed; the end of its output:", "", "```", ...reason, "```"],
  };
}

if (process.argv[1]?.endsWith("all.bench.js")) {
  const only = (process.env.HCD_BENCH_ONLY ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const chosen = SCENARIOS.filter((s) => only.length === 0 || only.includes(s));
  const handOverDir = mkdtempSync(join(tmpdir(), "hcd-bench-all-"));
  const storeDir = join(handOverDir, "store"); // written by scale, read by startup
  const started = process.hrtime.bigint();
  const results: ScenarioResult[] = [];
  try {
    for (const [i, name] of chosen.entries()) {
      process.stderr.write(`hcd bench: ${name} (${i + 1}/${chosen.length}) …\n`);
      const scenarioStarted = process.hrtime.bigint();
      results.push(await runScenario(name, { ...process.env, HCD_BENCH_STORE_DIR: storeDir }, handOverDir));
      console.log(`— ${name} took ${(msSince(scenarioStarted) / 1000).toFixed(0)} s`);
    }
  } finally {
    rmSync(handOverDir, { recursive: true, force: true });
  }
  const seconds = msSince(started) / 1000;
  printSummary(results.flatMap((r) => r.figures));
  appendResults(
    `all (npm run bench${only.length > 0 ? `, HCD_BENCH_ONLY=${only.join(",")}` : ""}${process.env.HCD_BENCH_SCALE ? `, HCD_BENCH_SCALE=${process.env.HCD_BENCH_SCALE}` : ""}), ${Math.round(seconds)} s`,
    results,
  );
  console.log(`\nall benches: ${Math.round(seconds)} s; appended to bench/RESULTS.md`);
}
