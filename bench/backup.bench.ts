// Pings during an online backup: hcd on a store of HCD_BENCH_BACKUP_CHECKS checks (default 100,000;
// the figure is 1,000,000) answers a fixed rate of pings (open loop, bench/rate-load) twice: once
// alone (the same-run baseline) and once while `hcd backup --url` copies the store. Reported: p99 of
// each run and their ratio, the backup's seconds and size.
// Run: node dist/bench/backup.bench.js   (env: HCD_BENCH_BACKUP_CHECKS, HCD_BENCH_BACKUP_RATE=500)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeBulkStore } from "./bulk-store.ts";
import { runFixedRate, writePaths } from "./load.ts";
import { fmt, finishScenario } from "./report.ts";
import type { ScenarioResult } from "./report.ts";
import { Progress } from "./measure.ts";
import { ADMIN_TOKEN, callJson, startHcd } from "./servers.ts";

const SCENARIO = "backup";
const HCD = fileURLToPath(new URL("../../bin/hcd.mjs", import.meta.url)); // from dist/bench/ to the source tree

async function runBackupBench(): Promise<ScenarioResult> {
  const count = Number(process.env.HCD_BENCH_BACKUP_CHECKS ?? 100_000);
  const rate = Number(process.env.HCD_BENCH_BACKUP_RATE ?? 500);
  const progress = new Progress(SCENARIO);
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-backup-"));
  try {
    const dataDir = join(dir, "data");
    const bulk = await writeBulkStore(dataDir, { count, burst: 0, at: Date.now(), progress });
    const server = await startHcd({ dataDir });
    try {
      // ping every check of the first projects, in turn
      const paths: string[] = [];
      for (const project of bulk.projects.slice(0, 10)) {
        const { json } = await callJson(server.url, "GET", "/api/v3/checks/", { headers: { "x-api-key": project.apiKey } });
        for (const check of (json as { checks: { ping_url: string }[] }).checks) paths.push(new URL(check.ping_url).pathname);
      }
      const pathsFile = writePaths(paths);
      try {
        const load = (seconds: number) =>
          runFixedRate({ url: server.url, pathsFile: pathsFile.file, rate, seconds, warmupSeconds: 1, connections: 50 });
        const alone = await load(10);
        const out = join(dir, "hcd.backup");
        const started = process.hrtime.bigint();
        let backupSeconds = 0;
        const backup = new Promise<number | null>((resolve) => {
          // after the load's warm-up second, so the backup falls inside the measured part
          setTimeout(() => {
            const child = spawn(process.execPath, [HCD, "backup", "--out", out, "--url", server.url, "--token", ADMIN_TOKEN], {
              stdio: "ignore",
            });
            child.once("exit", (code) => {
              backupSeconds = Number(process.hrtime.bigint() - started) / 1e9 - 1.5;
              resolve(code);
            });
          }, 1_500);
        });
        const during = await load(10);
        const code = await backup;
        if (code !== 0) throw new Error(`hcd backup exited with ${code}`);
        const bytes = statSync(out).size;
        return {
          scenario: SCENARIO,
          figures: [
            {
              scenario: SCENARIO,
              figure: `ping p99 at ${rate}/s during a backup of ${fmt(count)} checks`,
              value: during.p99Ms,
              unit: "ms",
              baseline: { value: alone.p99Ms, label: "the same load without a backup" },
            },
            { scenario: SCENARIO, figure: `backup of ${fmt(count)} checks (under load)`, value: backupSeconds, unit: "s" },
          ],
          details: [
            `Store: ${fmt(count)} checks in ${bulk.projects.length} projects; backup file ${fmt(Math.round(bytes / 1024))} KiB, ${backupSeconds.toFixed(1)} s.`,
            `Without a backup: p50 ${alone.p50Ms.toFixed(1)} ms, p99 ${alone.p99Ms.toFixed(1)} ms, max ${alone.maxMs.toFixed(1)} ms, ${alone.non200 + alone.errors} failed.`,
            `With the backup (started 0.5 s into the 10 s measured, it took ${backupSeconds.toFixed(1)} s): p50 ${during.p50Ms.toFixed(1)} ms, p99 ${during.p99Ms.toFixed(1)} ms, max ${during.maxMs.toFixed(1)} ms, ${during.non200 + during.errors} failed.`,
          ],
        };
      } finally {
        pathsFile.remove();
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("backup.bench.js")) {
  const result = await runBackupBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
