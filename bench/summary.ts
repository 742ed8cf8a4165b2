// Writes bench/README.md's table from bench/RESULTS.md (the log, kept as the evidence): for each scenario, up to
// three figures (those with a target first) from the newest run that measured it. `npm run bench:summary`.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const RESULTS = fileURLToPath(new URL("../../bench/RESULTS.md", import.meta.url));
const README = fileURLToPath(new URL("../../bench/README.md", import.meta.url));
const HEADER = "| scenario | figure | value | same-run baseline | ratio | target | verdict |";
const BEGIN = "<!-- summary: written by bench/summary.ts -->";
const END = "<!-- end of summary -->";

type Row = { readonly scenario: string; readonly cells: readonly string[] };
type Run = { readonly title: string; readonly at: string; readonly machine: string; readonly rows: readonly Row[] };

/** The dated runs of the log with a table of the usual columns, each with its machine line. */
export function runsOf(log: string): Run[] {
  return log
    .split(/^## /m)
    .slice(1)
    .flatMap((section): Run[] => {
      const lines = section.split("\n");
      const at = /^(\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(lines[0])?.[1];
      const start = lines.indexOf(HEADER);
      if (at === undefined || start < 0) return [];
      const rows: Row[] = [];
      for (const line of lines.slice(start + 2)) {
        if (!line.startsWith("| ")) break;
        const cells = line
          .slice(2, -2)
          .split(" | ")
          .map((cell) => cell.trim());
        rows.push({ scenario: cells[0], cells });
      }
      return [{ title: lines[0].trim(), at, machine: lines.find((line) => line.startsWith("nproc")) ?? "", rows }];
    });
}

/** Per scenario, the newest run's headline rows: up to three, those with a target first. */
export function summaryOf(runs: readonly Run[]): { rows: { run: Run; cells: readonly string[] }[]; runs: Run[] } {
  const newest = new Map<string, Run>();
  for (const run of runs) {
    for (const scenario of new Set(run.rows.map((row) => row.scenario))) {
      const known = newest.get(scenario);
      if (known === undefined || known.at <= run.at) newest.set(scenario, run);
    }
  }
  const rows = [...newest].flatMap(([scenario, run]) => {
    const all = run.rows.filter((row) => row.scenario === scenario);
    const targeted = all.filter((row) => row.cells[5] !== "");
    return [...targeted, ...all.filter((row) => row.cells[5] === "")].slice(0, 3).map((row) => ({ run, cells: row.cells }));
  });
  return { rows, runs: [...new Set(rows.map((row) => row.run))].sort((a, b) => a.at.localeCompare(b.at)) };
}

function table(summary: ReturnType<typeof summaryOf>): string {
  const id = (run: Run) => summary.runs.indexOf(run) + 1;
  return [
    "| scenario | figure | value | same-run baseline | ratio | target | verdict | run |",
    "|---|---|---|---|---|---|---|---|",
    ...summary.rows.map(({ run, cells }) => `| ${cells.join(" | ")} | ${id(run)} |`),
    "",
    "Runs (each a section of `RESULTS.md`, with its machine):",
    "",
    ...summary.runs.map((run) => `${id(run)}. ${run.title}: ${run.machine}`),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(README, "utf8");
  const from = readme.indexOf(BEGIN),
    to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${README}: no ${BEGIN} ... ${END}`);
  const summary = summaryOf(runsOf(readFileSync(RESULTS, "utf8")));
  writeFileSync(README, `${readme.slice(0, from + BEGIN.length)}\n${table(summary)}\n${readme.slice(to)}`);
}
