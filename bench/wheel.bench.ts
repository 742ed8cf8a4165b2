// TimerWheel cost at 1e4, 1e5 and 1e6 timers: set (fresh keys), re-set (replace), advance (firing
// every timer, one tick at a time over a day) and delete. Run: node dist/bench/wheel.bench.js
import { DAY, SECOND } from "../engine/model.ts";
import { TimerWheel } from "../engine/wheel.ts";
import { finishScenario } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";

/** One measured operation: nanoseconds per operation and operations per second. */
export type WheelBenchRow = { readonly timers: number; readonly op: string; readonly nsPerOp: number; readonly opsPerSec: number };

const TICK_MS = SECOND;
const SLOTS = 4096;
const START_AT = 1_700_000_000_000;

/** Runs the wheel bench for each timer count and returns one row per (count, operation). */
export function runWheelBench(counts: readonly number[] = [1e4, 1e5, 1e6]): WheelBenchRow[] {
  benchCount(1e4); // warm-up: let the JIT settle before anything is reported
  return counts.flatMap((n) => benchCount(n));
}

function benchCount(n: number): WheelBenchRow[] {
  const keys = Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`);
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const dueAts = keys.map(() => START_AT + Math.floor(random() * DAY)); // deadlines spread over one day
  const movedAts = dueAts.map((at) => at + Math.floor(random() * DAY));
  const rows: WheelBenchRow[] = [];
  const row = (op: string, ops: number, ns: number) => rows.push({ timers: n, op, nsPerOp: ns / ops, opsPerSec: ops / (ns / 1e9) });

  const wheel = new TimerWheel<string>({ tickMs: TICK_MS, slots: SLOTS, now: START_AT });
  row(
    "set",
    n,
    time(() => {
      for (let i = 0; i < n; i++) wheel.set(keys[i], dueAts[i]);
    }),
  );
  row(
    "set (replace)",
    n,
    time(() => {
      for (let i = 0; i < n; i++) wheel.set(keys[i], movedAts[i]);
    }),
  );

  let fired = 0;
  let calls = 0;
  const advanceNs = time(() => {
    for (let now = START_AT; wheel.size > 0; now += TICK_MS) {
      fired += wheel.advance(now).length;
      calls++;
    }
  });
  if (fired !== n) throw new Error(`wheel bench: fired ${fired} of ${n}`);
  row("advance (per fired timer)", n, advanceNs);
  row("advance (per 1 s tick call)", calls, advanceNs);

  const big = new TimerWheel<string>({ tickMs: TICK_MS, slots: SLOTS, now: START_AT });
  for (let i = 0; i < n; i++) big.set(keys[i], dueAts[i]);
  row(
    "advance (one jump, per timer)",
    n,
    time(() => {
      fired = big.advance(START_AT + 2 * DAY).length;
    }),
  );
  if (fired !== n) throw new Error(`wheel bench: jump fired ${fired} of ${n}`);

  for (let i = 0; i < n; i++) big.set(keys[i], dueAts[i]);
  row(
    "delete",
    n,
    time(() => {
      for (let i = 0; i < n; i++) big.delete(keys[i]);
    }),
  );
  const map = new Map<string, number>(); // same-run baseline: the cheapest keyed insert there is
  row(
    "Map.set (baseline)",
    n,
    time(() => {
      for (let i = 0; i < n; i++) map.set(keys[i], dueAts[i]);
    }),
  );
  return rows;
}

function time(run: () => void): number {
  const started = process.hrtime.bigint(); // benches may time themselves
  run();
  return Number(process.hrtime.bigint() - started);
}

/** Returns rows as a fixed-width table. */
export function formatWheelBench(rows: readonly WheelBenchRow[]): string[] {
  return [
    `TimerWheel, tick ${TICK_MS} ms, ${SLOTS} slots, deadlines spread over a day`,
    `${"timers".padStart(9)}  ${"operation".padEnd(30)} ${"ns/op".padStart(9)} ${"ops/s".padStart(13)}`,
    ...rows.map(
      (r) =>
        `${r.timers.toLocaleString("en").padStart(9)}  ${r.op.padEnd(30)} ${r.nsPerOp.toFixed(0).padStart(9)} ${Math.round(r.opsPerSec).toLocaleString("en").padStart(13)}`,
    ),
  ];
}

/** Prints rows as a fixed-width table. */
export function printWheelBench(rows: readonly WheelBenchRow[]): void {
  console.log(formatWheelBench(rows).join("\n"));
}

/** Returns the summary figures (at the largest timer count, next to Map.set) and the table as details. */
export function wheelResult(rows: readonly WheelBenchRow[]): ScenarioResult {
  const n = Math.max(...rows.map((r) => r.timers));
  const ns = (op: string) => rows.find((r) => r.timers === n && r.op === op)?.nsPerOp ?? Number.NaN;
  const baseline = { value: ns("Map.set (baseline)"), label: "Map.set" };
  const figures: Figure[] = [
    { scenario: "wheel", figure: `set, ${n.toLocaleString("en")} timers`, value: ns("set"), unit: "ns/op", baseline },
    {
      scenario: "wheel",
      figure: `advance, per fired timer, ${n.toLocaleString("en")} timers`,
      value: ns("advance (per fired timer)"),
      unit: "ns/op",
      baseline,
    },
  ];
  return { scenario: "wheel", figures, details: ["```", ...formatWheelBench(rows), "```"] };
}

if (process.argv[1]?.endsWith("wheel.bench.js")) {
  const rows = runWheelBench();
  printWheelBench(rows);
  finishScenario(wheelResult(rows));
}
