// Bytes written to storage per acknowledged ping: hcd (`node dist/app/main.js`, DURABILITY=flush, 1,000
// checks) under POST pings with 35-byte bodies, /proc/<pid>/io write_bytes of the server process (all its
// threads) from before the load until its writes have settled, divided by the pings answered 200. After each
// load the bench asks for the outbox (GET /admin/v1/outbox), which checkpoints every shard: the bytes then
// include writing the load's pings into the tables, not only the log's appends. Two loads, alternated:
// closed loop with 20 connections (autocannon or wrk), and a steady 200 pings/s (open loop, one sync each)
// for as long as a checkpoint waits at most (60 s), so that its one checkpoint is the one a steady rate
// gets. Then the write profile (bench/write-profile.ts): what the log and a checkpoint each write per ping,
// on fresh ping logs and on full ones. Beside write_bytes, the bytes the disk holding DATA_DIR got over the
// same window (its sectors written: every process's, the file system's journal included, and a page
// counted once however the page cache accounts it). The same-run floor: the durable bare server
// (bench/durable-bare-server.ts: one synced write per event-loop turn, nothing else) under the same
// 20 connections, alternated with hcd's runs: what acknowledging a ping durably writes before any state.
// Run: node dist/bench/writes.bench.js   (env: HCD_BENCH_RUNS=3, HCD_BENCH_SECONDS=5, HCD_BENCH_STEADY_SECONDS=60)
import { peakGenerator, runFixedRate, runPeak } from "./load.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deviceBytesWritten, median, Progress, settledWriteBytes, writeBytesOf } from "./measure.ts";
import { PING_BODY, startPingFixture } from "./ping-fixture.ts";
import type { PingFixture } from "./ping-fixture.ts";
import { finishScenario, fmt } from "./report.ts";
import { ADMIN_TOKEN, startDurableBare } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { runFullLogProfile, runWriteProfile } from "./write-profile.ts";

const SCENARIO = "writes";
const CONNECTIONS = 20;
const RATE = 200;
const SETTLE = { minMs: 2_500, quietMs: 1_000, maxMs: 20_000 }; // then 1 s without a write

type Run = {
  readonly pings: number;
  readonly bytes: number;
  readonly deviceBytes: number | null;
  readonly perSecond: number;
  readonly failures: number;
};

/** Runs the write bench and returns its figures and detail lines. */
export async function runWritesBench(): Promise<ScenarioResult> {
  const runs = Number(process.env.HCD_BENCH_RUNS ?? 3),
    seconds = Number(process.env.HCD_BENCH_SECONDS ?? 5);
  const steadySeconds = Number(process.env.HCD_BENCH_STEADY_SECONDS ?? 60);
  const progress = new Progress(SCENARIO);
  let fixture: PingFixture | null = null,
    durable: ServerProcess | null = null;
  const durableDir = mkdtempSync(join(tmpdir(), "hcd-bench-writes-durable-bare-"));
  try {
    progress.update(0, 1, "creating 1,000 checks", true);
    const f = await startPingFixture();
    fixture = f;
    const pid = f.hcd.pid;
    if (writeBytesOf(pid) === null) throw new Error(`writes bench: /proc/${pid}/io is not readable`);
    const floor = (durable = await startDurableBare(durableDir));
    const measure = async (load: () => Promise<{ pings: number; perSecond: number; failures: number }>): Promise<Run> => {
      const before = await settledWriteBytes(pid, SETTLE),
        deviceBefore = deviceBytesWritten(f.dataDir);
      const result = await load();
      const checkpointed = await fetch(`${f.hcd.url}/admin/v1/outbox`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      if (checkpointed.status !== 200) throw new Error(`writes bench: GET /admin/v1/outbox answered ${checkpointed.status}`);
      await checkpointed.arrayBuffer();
      // a failed request is not an acknowledged ping: counted and shown, not divided by
      const bytes = (await settledWriteBytes(pid, SETTLE)) - before,
        deviceAfter = deviceBytesWritten(f.dataDir);
      const deviceBytes = deviceBefore === null || deviceAfter === null ? null : deviceAfter - deviceBefore;
      return { pings: result.pings - result.failures, bytes, deviceBytes, perSecond: result.perSecond, failures: result.failures };
    };
    const closed = () =>
      measure(async () => {
        const r = await runPeak({
          url: f.hcd.url,
          pathsFile: f.pathsFile,
          paths: f.paths,
          connections: CONNECTIONS,
          seconds,
          body: PING_BODY,
        });
        return { pings: r.requests, perSecond: r.perSecond, failures: r.failures };
      });
    const steady = () =>
      measure(async () => {
        const r = await runFixedRate({
          url: f.hcd.url,
          pathsFile: f.pathsFile,
          rate: RATE,
          seconds: steadySeconds,
          warmupSeconds: 0,
          connections: CONNECTIONS,
          body: PING_BODY,
        });
        return { pings: r.completed, perSecond: r.achievedRate, failures: r.non200 + r.errors };
      });
    // the floor: bytes the durable bare server writes per request under the same load (no checkpoint to wait for)
    const floorRun = async (): Promise<Run> => {
      const before = await settledWriteBytes(floor.pid, SETTLE);
      const r = await runPeak({
        url: floor.url,
        pathsFile: f.pathsFile,
        paths: f.paths,
        connections: CONNECTIONS,
        seconds,
        body: PING_BODY,
      });
      const bytes = (await settledWriteBytes(floor.pid, SETTLE)) - before;
      return { pings: r.requests - r.failures, bytes, deviceBytes: null, perSecond: r.perSecond, failures: r.failures };
    };
    const steps = 1 + 3 * runs;
    let step = 0;
    progress.update(++step, steps, "warm-up", true);
    await runPeak({ url: f.hcd.url, pathsFile: f.pathsFile, paths: f.paths, connections: CONNECTIONS, seconds: 2, body: PING_BODY });
    await runPeak({ url: floor.url, pathsFile: f.pathsFile, paths: f.paths, connections: CONNECTIONS, seconds: 2, body: PING_BODY });
    const closedRuns: Run[] = [],
      steadyRuns: Run[] = [],
      floorRuns: Run[] = [];
    for (let r = 0; r < runs; r++) {
      progress.update(++step, steps, `run ${r + 1}/${runs}: durable bare, ${CONNECTIONS} connections`, true);
      floorRuns.push(await floorRun());
      progress.update(++step, steps, `run ${r + 1}/${runs}: ${CONNECTIONS} connections`, true);
      closedRuns.push(await closed());
      progress.update(++step, steps, `run ${r + 1}/${runs}: ${RATE}/s`, true);
      steadyRuns.push(await steady());
    }
    progress.update(step, steps, "write profile (in-process store)", true);
    const profile = await runWriteProfile(runs);
    progress.update(step, steps, "write profile with full ping logs (in-process store)", true);
    const full = await runFullLogProfile();
    progress.done();

    const perPing = (list: Run[]) => median(list.map((m) => m.bytes / m.pings));
    const devicePerPing = (list: Run[]) =>
      list.every((m) => m.deviceBytes !== null) ? median(list.map((m) => m.deviceBytes! / m.pings)) : null;
    const generator = peakGenerator();
    const details = [
      `hcd: DURABILITY=flush, CLOCK=real, default SHARDS, 1,000 checks in 10 projects; POST /ping/<uuid> with a 35-byte body, ` +
        `cycling through every check. Bytes: /proc/<pid>/io write_bytes of the server process from before each load until ` +
        `1 s without a write (at least 2.5 s), after a checkpoint of every shard (GET /admin/v1/outbox) that follows each load. Loads alternated: ${generator} -c${CONNECTIONS} for ${seconds} s, ` +
        `then ${RATE}/s open loop for ${steadySeconds} s (${runs} each). Device: sectors written to the disk holding DATA_DIR over the same ` +
        "window (every process's writes, the file system's journal included).",
      "",
      "| run | load | pings answered 200 | failed | pings/s | bytes written | bytes per ping | device bytes | device bytes per ping |",
      "|---|---|---|---|---|---|---|---|---|",
      ...closedRuns.flatMap((m, r) =>
        [floorRuns[r], m, steadyRuns[r]].map(
          (x, i) =>
            `| ${r + 1} | ${["durable bare, ", "", ""][i]}${i < 2 ? `c${CONNECTIONS}` : `${RATE}/s`} | ${fmt(x.pings)} | ${x.failures} | ${fmt(x.perSecond)} | ${fmt(x.bytes)} | ${fmt(x.bytes / x.pings)} | ` +
            `${x.deviceBytes === null ? "" : fmt(x.deviceBytes)} | ${x.deviceBytes === null ? "" : fmt(x.deviceBytes / x.pings)} |`,
        ),
      ),
      "",
      "Write profile (persistence/store.ts in one process, /proc/self/io; 1,000 checks, 240 pings, then one checkpoint; medians of " +
        `${runs}): journal = the commits until acknowledged (synced), checkpoint = applying them to the tables and removing them from the journal.`,
      "",
      "| commits per event-loop turn | journal B/ping | checkpoint B/ping | checkpoint B per check touched | checks touched |",
      "|---|---|---|---|---|",
      ...profile.rows.map(
        (row) =>
          `| ${row.perTurn} | ${fmt(row.journalPerPing)} | ${fmt(row.checkpointPerPing)} | ${fmt(row.checkpointPerCheck)} | ${fmt(row.checksTouched)} |`,
      ),
      "",
      `Encoded sizes of one ping's writes: journal record ${profile.sizes.journalRecord} B (the whole check plus the ping record and body), ` +
        `check row ${profile.sizes.checkRow} B (plain msgpack; the table's shared structures make it smaller), ping record ${profile.sizes.pingRecord} B, body ${profile.sizes.body} B; ` +
        `the same ping as a compact entry (its PingWrite and the check fields a ping changes) ${profile.sizes.compactRecord} B.`,
      "",
      "The candidate log medium, same process: those records appended to a plain file, one write + fdatasync per turn (bytes written per record):",
      "",
      "| records per sync | record bytes | bytes written per record |",
      "|---|---|---|",
      ...profile.fileAppends.map((row) => `| ${row.perTurn} | ${row.recordBytes} | ${fmt(row.perRecord)} |`),
      "",
      "Checkpoints of full ping logs (same process; 1,000 checks whose logs hold their 100 pings with 35-byte bodies, then 4 checkpoints " +
        "of 12 pings of every check, as a steady 200/s for a minute gives; each checkpoint's bytes alone; a trim: the checkpoint moved every log's floor):",
      "",
      "| checkpoint | pings | bytes per ping | bytes per check | logs trimmed | ping log leaf pages after |",
      "|---|---|---|---|---|---|",
      ...full.map(
        (row) =>
          `| ${row.checkpoint} | ${fmt(row.pings)} | ${fmt(row.perPing)} | ${fmt(row.perCheck)} | ${fmt(row.trims)} | ${fmt(row.pingLeafPages)} |`,
      ),
    ];
    const figures: Figure[] = [
      {
        scenario: SCENARIO,
        figure: `bytes written per acknowledged ping, ${generator} c=${CONNECTIONS}, 1,000 checks, median of ${runs}`,
        value: perPing(closedRuns),
        unit: "B",
        baseline: { value: perPing(floorRuns), label: "durable bare, the same load" },
        target: { op: "<=", value: 1_024, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: `bytes written per ping at a steady ${RATE}/s, median of ${runs}`,
        value: perPing(steadyRuns),
        unit: "B",
        target: { op: "<=", value: 8_192, on: "value" },
      },
      { scenario: SCENARIO, figure: "journal record of one ping (encoded)", value: profile.sizes.journalRecord, unit: "B" },
    ];
    const deviceClosed = devicePerPing(closedRuns),
      deviceSteady = devicePerPing(steadyRuns);
    if (deviceClosed !== null)
      figures.push({
        scenario: SCENARIO,
        figure: `device bytes per acknowledged ping, c=${CONNECTIONS}, median of ${runs}`,
        value: deviceClosed,
        unit: "B",
      });
    if (deviceSteady !== null)
      figures.push({
        scenario: SCENARIO,
        figure: `device bytes per ping at a steady ${RATE}/s, median of ${runs}`,
        value: deviceSteady,
        unit: "B",
      });
    figures.push({
      scenario: SCENARIO,
      figure: "write profile, full ping logs: checkpoint bytes per ping (median of 4 checkpoints of 12 pings a check)",
      value: median(full.map((row) => row.perPing)),
      unit: "B",
    });
    for (const row of profile.rows) {
      figures.push(
        {
          scenario: SCENARIO,
          figure: `write profile, ${row.perTurn} commit(s) a turn: journal bytes per ping`,
          value: row.journalPerPing,
          unit: "B",
        },
        {
          scenario: SCENARIO,
          figure: `write profile, ${row.perTurn} commit(s) a turn: checkpoint bytes per ping`,
          value: row.checkpointPerPing,
          unit: "B",
        },
      );
    }
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    await fixture?.close();
    await durable?.stop();
    rmSync(durableDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("writes.bench.js")) {
  const result = await runWritesBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
