// What-if simulation on a real server: POST /api/v3/checks/<uuid>/simulate over a 1,000-entry ping log,
// against the same run's GET /api/v3/checks/<uuid>/pings of the same log (the read it starts with).
// Target (issue "Simulation"): a 1,000-entry simulation answers in <= 50 ms (median).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, msSince } from "./measure.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { ADMIN_TOKEN, callJson, createCheck, startHcd } from "./servers.ts";

const SCENARIO = "simulate";
const ENTRIES = 1_000;
const RUNS = Number(process.env.HCD_BENCH_SIMULATE_RUNS ?? 31);

/** Returns the median milliseconds of `runs` sequential calls of `call` (after two warm-up calls). */
async function timed(runs: number, call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await call();
    samples.push(msSince(started));
  }
  return median(samples);
}

export async function runSimulateBench(): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "hcd-bench-simulate-"));
  const server = await startHcd({ dataDir, env: { CLOCK: "virtual" } });
  try {
    const base = server.url;
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const { json } = await callJson(base, "POST", "/admin/v1/projects", {
      body: { name: "simulate", ping_log_limit: ENTRIES },
      headers: admin,
    });
    const apiKey = (json as { api_key: string }).api_key;
    const uuid = await createCheck(base, apiKey, { name: "hourly-ish", timeout: 3600, grace: 60 });
    // a job that runs every 3,500 s, one run in ten late by 10 minutes: a history with flips in it
    for (let i = 0; i < ENTRIES; i++) {
      const ping = await fetch(`${base}/ping/${uuid}`);
      await ping.text();
      await callJson(base, "POST", "/admin/v1/clock", { body: { advance: i % 10 === 9 ? 4100 : 3500 }, headers: admin });
    }
    const headers = { "x-api-key": apiKey };
    const listed = await callJson(base, "GET", `/api/v3/checks/${uuid}/pings`, { headers });
    const logged = (listed.json as { pings: unknown[] }).pings.length;
    if (logged !== ENTRIES) throw new Error(`expected ${ENTRIES} logged pings, got ${logged}`);
    const candidate = { timeout: 1800, grace: 600 };
    const answer = (await callJson(base, "POST", `/api/v3/checks/${uuid}/simulate`, { body: candidate, headers })).json as {
      down_count: number;
    };
    const listMs = await timed(RUNS, () => callJson(base, "GET", `/api/v3/checks/${uuid}/pings`, { headers }));
    const simulateMs = await timed(RUNS, () => callJson(base, "POST", `/api/v3/checks/${uuid}/simulate`, { body: candidate, headers }));
    const ownMs = await timed(RUNS, () => callJson(base, "POST", `/api/v3/checks/${uuid}/simulate`, { body: {}, headers }));
    const baseline = { value: listMs, label: `GET /pings of the same ${fmt(ENTRIES)} entries` };
    const figures: Figure[] = [
      {
        scenario: SCENARIO,
        figure: `simulate ${fmt(ENTRIES)} logged pings, timeout 1800 grace 600 (median of ${RUNS})`,
        value: simulateMs,
        unit: "ms",
        baseline,
        target: { op: "<=", value: 50, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: `simulate ${fmt(ENTRIES)} logged pings, the check's own settings (median of ${RUNS})`,
        value: ownMs,
        unit: "ms",
        baseline,
        target: { op: "<=", value: 50, on: "value" },
      },
    ];
    const details = [
      `A check pinged ${fmt(ENTRIES)} times, every 3,500 s with one run in ten 600 s late, on a virtual clock;`,
      `the candidate settings give ${answer.down_count} down flips. Medians of ${RUNS} sequential requests over loopback:`,
      "",
      "```",
      `GET  /pings     ${listMs.toFixed(2)} ms (baseline: the log read the simulation starts with)`,
      `POST /simulate  ${simulateMs.toFixed(2)} ms (candidate settings)`,
      `POST /simulate  ${ownMs.toFixed(2)} ms (own settings)`,
      "```",
    ];
    return { scenario: SCENARIO, figures, details };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("simulate.bench.js")) {
  const result = await runSimulateBench();
  finishScenario(result);
}
