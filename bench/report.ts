// Figures with their same-run baselines and targets: the summary table, pass/miss (and by how much),
// and the append-only log bench/RESULTS.md with date and machine.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release } from "node:os";
import { fileURLToPath } from "node:url";

/** A target: the figure (or its ratio to the baseline) must be at least / at most `value`. */
export type Target = { readonly op: ">=" | "<="; readonly value: number; readonly on: "value" | "ratio" };

/** One reported number, next to what it is compared with in the same run. */
export type Figure = {
  readonly scenario: string;
  readonly figure: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly value: number; readonly label: string };
  readonly target?: Target;
};

/** What one scenario hands back: its figures and the detail lines (markdown) behind them. */
export type ScenarioResult = { readonly scenario: string; readonly figures: readonly Figure[]; readonly details: readonly string[] };

const RESULTS = fileURLToPath(new URL("../../bench/RESULTS.md", import.meta.url)); // from dist/bench/ to the source tree

/** Returns "pass", "MISS" or "" (no target) for a figure. */
export function verdictOf(figure: Figure): "pass" | "MISS" | "" {
  const { target } = figure;
  if (target === undefined) return "";
  const actual = target.on === "ratio" ? ratioOf(figure) : figure.value;
  if (actual === null || !Number.isFinite(actual)) return "MISS";
  return (target.op === ">=" ? actual >= target.value : actual <= target.value) ? "pass" : "MISS";
}

/** Returns how far a missed figure is from its target, in words; null when it passes or has no target. */
export function shortfallOf(figure: Figure): string | null {
  const { target } = figure;
  if (target === undefined || verdictOf(figure) !== "MISS") return null;
  const actual = target.on === "ratio" ? ratioOf(figure) : figure.value;
  if (actual === null || !Number.isFinite(actual)) return `${figure.scenario}: ${figure.figure}: not measured`;
  const unit = target.on === "ratio" ? "" : ` ${figure.unit}`;
  const what = target.on === "ratio" ? `ratio ${fmt(actual)}` : `${fmt(actual)}${unit}`;
  const off =
    target.op === ">=" ? `${pct((target.value - actual) / target.value)} short of` : `${pct((actual - target.value) / target.value)} over`;
  return `${figure.scenario}: ${figure.figure}: ${what} is ${off} the target ${target.op === ">=" ? "≥" : "≤"} ${fmt(target.value)}${unit}`;
}

function ratioOf(figure: Figure): number | null {
  return figure.baseline && figure.baseline.value !== 0 ? figure.value / figure.baseline.value : null;
}

/** Returns the summary as a markdown table: scenario, figure, value, baseline, ratio, target, verdict. */
export function summaryTable(figures: readonly Figure[]): string[] {
  const lines = ["| scenario | figure | value | same-run baseline | ratio | target | verdict |", "|---|---|---|---|---|---|---|"];
  for (const f of figures) {
    const ratio = ratioOf(f);
    const target =
      f.target === undefined
        ? ""
        : `${f.target.on === "ratio" ? "ratio " : ""}${f.target.op === ">=" ? "≥" : "≤"} ${fmt(f.target.value)}${f.target.on === "value" ? ` ${f.unit}` : ""}`;
    const baseline = f.baseline ? `${fmt(f.baseline.value)} ${f.unit} (${f.baseline.label})` : "";
    lines.push(
      `| ${f.scenario} | ${f.figure} | ${fmt(f.value)} ${f.unit} | ${baseline} | ${ratio === null ? "" : fmt(ratio)} | ${target} | ${verdictOf(f)} |`,
    );
  }
  return lines;
}

/** Returns a number for a table: thousands separators from 100 up, else three significant digits. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en");
  return Number(value.toPrecision(3)).toString();
}

function pct(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/** Returns one line describing this machine and build: nproc, CPU model, node, kernel, commit, load average now. */
export function machineLine(): string {
  const model = cpus()[0]?.model.trim() ?? "unknown CPU";
  let commit = "unknown commit";
  try {
    const cwd = fileURLToPath(new URL("../..", import.meta.url));
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd, encoding: "utf8" }).trim();
    if (dirty !== "") commit += " + uncommitted changes";
  } catch {
    // not a git checkout: the commit stays unknown
  }
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  return `nproc ${availableParallelism()} · ${model} · node ${process.version} · linux ${release()} · commit ${commit} · load average at the end ${load}`;
}

/** Appends a dated section (machine, summary, details) to bench/RESULTS.md; never rewrites what is there. */
export function appendResults(title: string, results: readonly ScenarioResult[]): void {
  const figures = results.flatMap((r) => r.figures);
  const when = new Date().toISOString().replace("T", " ").slice(0, 16) + " UTC";
  const misses = figures.map(shortfallOf).filter((s): s is string => s !== null);
  const section = [
    "",
    `## ${when} · ${title}`,
    "",
    machineLine(),
    "",
    ...summaryTable(figures),
    "",
    ...(misses.length > 0 ? ["Missed targets:", ...misses.map((m) => `- ${m}`), ""] : []),
    ...results.flatMap((r) => (r.details.length > 0 ? [`### ${r.scenario}`, "", ...r.details, ""] : [])),
  ];
  if (!existsSync(RESULTS))
    writeFileSync(RESULTS, "# Bench results\n\nAppended by `npm run bench` and by each bench run alone; newest last.\n");
  appendFileSync(RESULTS, section.join("\n"));
}

/** Prints the summary and the misses to stdout. */
export function printSummary(figures: readonly Figure[]): void {
  console.log(["", ...summaryTable(figures), ""].join("\n"));
  for (const miss of figures.map(shortfallOf)) if (miss !== null) console.log(`MISSED ${miss}`);
}

/**
 * Ends a scenario: under all.bench (HCD_BENCH_FIGURES names a file) hands the result over as JSON;
 * run alone, prints the summary and appends it to bench/RESULTS.md.
 */
export function finishScenario(result: ScenarioResult): void {
  const handOver = process.env.HCD_BENCH_FIGURES;
  if (handOver) {
    writeFileSync(handOver, JSON.stringify(result));
    return;
  }
  printSummary(result.figures);
  appendResults(`${result.scenario} (run alone)`, [result]);
  console.log(`appended to ${RESULTS}`);
}
