// The dashboard's cost on a 1,000-check project, against a same-run baseline (the API's list of the same
// checks, GET /api/v3/checks/): the checks page, and one auto-refresh of its table (/checks/rows).
// Latency at concurrency 1 over loopback, median of 60 requests after 10 warm-up ones (client time
// included, so these are upper bounds of the server time). `node dist/bench/dashboard.bench.js`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, msSince } from "./measure.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { finishScenario } from "./report.ts";
import { ADMIN_TOKEN, createCheck, createProject, mapConcurrently, startHcd } from "./servers.ts";

const CHECKS = 1_000;
const WARMUP = 10;
const SAMPLES = 60;

async function latencyMs(url: string, headers: Record<string, string>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const started = process.hrtime.bigint();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`dashboard bench: ${url} answered ${response.status}`);
    if (i >= WARMUP) samples.push(msSince(started));
  }
  return median(samples);
}

export async function runDashboardBench(): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-dashboard-"));
  const server = await startHcd({ dataDir: dir });
  try {
    const project = await createProject(server.url, "dashboard", CHECKS);
    await mapConcurrently(Array.from({ length: CHECKS }, (_, i) => i), 16, (i) =>
      createCheck(server.url, project.apiKey, { name: `check ${i}`, slug: `check-${i}`, tags: `t${i % 7} prod`, timeout: 3600, grace: 600 }));
    const signIn = await fetch(`${server.url}/signin`, { method: "POST", body: new URLSearchParams({ key: ADMIN_TOKEN }), redirect: "manual" });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
    const api = await latencyMs(`${server.url}/api/v3/checks/`, { "x-api-key": project.apiKey });
    const page = await latencyMs(`${server.url}/projects/${project.id}/checks`, { cookie });
    const rows = await latencyMs(`${server.url}/projects/${project.id}/checks/rows`, { cookie });
    const baseline = { value: api, label: `GET /api/v3/checks/ of the same ${CHECKS} checks` };
    const figures: Figure[] = [
      { scenario: "dashboard", figure: `checks page of ${CHECKS} checks, median latency`, value: page, unit: "ms", baseline, target: { op: "<=", value: 50, on: "value" } },
      { scenario: "dashboard", figure: "one auto-refresh of that table, median latency", value: rows, unit: "ms", baseline, target: { op: "<=", value: 5, on: "value" } },
    ];
    return {
      scenario: "dashboard",
      figures,
      details: [`Median of ${SAMPLES} requests each at concurrency 1 (client time included): API list ${api.toFixed(1)} ms, checks page ${page.toFixed(1)} ms, rows ${rows.toFixed(1)} ms.`],
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("dashboard.bench.js")) {
  const result = await runDashboardBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
