// How far-off cron occurrences are found: 400 look-ups of a date 4 years away (Feb 29) against 400 of
// the next minute, in the same run; the ratio shows they are not found by stepping minute by minute
// (which would be about 2 million steps each). Run: npm run -s build && node dist/bench/schedule.bench.js
import { performance } from "node:perf_hooks";
import { nextAfter } from "../engine/schedule.ts";

const START = Date.UTC(2024, 2, 1);

function lookUps(exprs: readonly [string, string][]): number {
  const started = performance.now();
  for (let i = 0; i < 200; i++) for (const [expr, tz] of exprs) nextAfter(expr, tz, START + i * 1000);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const far: [string, string][] = [
  ["* * 29 2 *", "Europe/Riga"],
  ["*-02-29 12:00", "Australia/Sydney"],
];
const near: [string, string][] = [
  ["* * * * *", "Europe/Riga"],
  ["*-*-* *:*", "Australia/Sydney"],
];
const farMs: number[] = [];
const nearMs: number[] = [];
for (let run = 0; run < 7; run++) {
  nearMs.push(lookUps(near));
  farMs.push(lookUps(far));
}
console.log(
  `400 look-ups, median of 7: next minute ${median(nearMs).toFixed(1)} ms, 4 years away ${median(farMs).toFixed(1)} ms, ` +
    `ratio ${(median(farMs) / median(nearMs)).toFixed(1)}x`,
);
