// bench/README.md's summary of the log (bench/summary.ts): per scenario, the newest run that measured it, up
// to three figures with those that have a target first; undated sections and other tables are not runs.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runsOf, summaryOf } from "../../bench/summary.ts";

const HEADER = "| scenario | figure | value | same-run baseline | ratio | target | verdict |\n|---|---|---|---|---|---|---|";
const log = `# Bench results

## 2026-11-20 10:00 UTC · all (npm run bench), 100 s

nproc 2 · old machine

${HEADER}
| pings | peak | 100 req/s | 200 req/s (bare) | 0.5 | ratio ≥ 0.6 | MISS |
| store | restore | 1 s |  |  |  |  |

## An analysis between runs

| scenario | figure | value | same-run baseline | ratio | target | verdict |
|---|---|---|---|---|---|---|
| pings | peak | 999 req/s |  |  |  |  |

## 2026-11-22 10:00 UTC · pings (run alone)

nproc 2 · new machine

${HEADER}
| pings | a | 1 |  |  |  |  |
| pings | b | 2 |  |  |  |  |
| pings | peak | 150 req/s | 200 req/s (bare) | 0.75 | ratio ≥ 0.6 | pass |
| pings | c | 3 |  |  |  |  |
`;

test("the newest run of each scenario, its figures with a target first, three at most; the machine of each run", () => {
  const runs = runsOf(log);
  assert.equal(
    runs.map((run) => run.at),
    ["2026-11-20 10:00", "2026-11-22 10:00"],
    "dated sections only",
  );
  const summary = summaryOf(runs);
  assert.equal(
    summary.rows.map(({ cells }) => `${cells[0]} ${cells[1]} ${cells[2]}`),
    ["pings peak 150 req/s", "pings a 1", "pings b 2", "store restore 1 s"],
  );
  assert.equal(
    summary.runs.map((run) => run.machine),
    ["nproc 2 · old machine", "nproc 2 · new machine"],
  );
});

test.run();
