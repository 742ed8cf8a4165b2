// 100,000 checks down at the same instant with hourly reminders: how long one advance of the clock to
// their shared reminder second takes to queue every reminder durably (journal committed, DURABILITY=flush),
// beside the same run's advance that queued their down notifications (the baseline). One shard with a
// real LMDB store; no deliverer runs (the time is the engine's and the commit's). Then the worker pool
// as the server runs it (SHARDS = the machine's cores, each shard a worker thread; their deliverers off,
// as above: with email not configured they would retry 100,000 entries meanwhile), where the checks go
// down by their deadlines in one advance (the baseline, as the scale bench's burst) and their first
// reminders fall due in the same second an hour later.
//   npm run -s build && node dist/bench/reminders.bench.js [checks]
// With REMINDERS_PROFILE=<dir>, each of the two timed advances is CPU-profiled on its own (node:inspector)
// and the self-time summary of each is printed after the figures.
import { performance } from "node:perf_hooks";
import { Session } from "node:inspector/promises";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { ShardHost } from "../host/shard-host.ts";
import { createWorkerPool } from "../app/pools.ts";
import { Shard } from "../engine/shard.ts";
import { HOUR, MINUTE } from "../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "./scenarios.ts";
import { profileDetails } from "./cpu-profile.ts";

const CHECKS = Number(process.argv[2] ?? 100_000);
const PER_PROJECT = 1_000;
const T0 = Date.UTC(2026, 0, 1);
const PROFILE_DIR = process.env.REMINDERS_PROFILE ?? "";

/** CPU milliseconds this process has used (every thread, the collector's helpers too): on a shared machine, beside wall time. */
function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** Runs `section`, CPU-profiled into PROFILE_DIR/<name>.cpuprofile when REMINDERS_PROFILE is set. */
async function profiled<T>(name: string, section: () => Promise<T> | T): Promise<T> {
  if (PROFILE_DIR === "") return section();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await section();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/** The engine alone (no store): one advance that queues every reminder, beside the pings that made the checks down. */
async function pureShard(): Promise<void> {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const uuids: string[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const made = shard.createCheck("p", { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } }, [], T0);
    if (made.ok) uuids.push(made.value.check.uuid);
  }
  shard.takeChanges();
  let started = performance.now(),
    cpuAt = cpuMs();
  for (const uuid of uuids) shard.ping(pingOf({ uuid }, T0 + 500, { signal: "fail" }));
  const downs = shard.takeChanges().outbox.length;
  const downMs = performance.now() - started,
    downCpu = cpuMs() - cpuAt;
  let reminderMs = 0,
    reminderCpu = 0;
  const reminders = await profiled("engine-alone", () => {
    started = performance.now();
    cpuAt = cpuMs();
    shard.advance(T0 + 500 + HOUR);
    const queued = shard.takeChanges().outbox.filter((entry) => entry.reminder === 1).length;
    reminderMs = performance.now() - started;
    reminderCpu = cpuMs() - cpuAt;
    return queued;
  });
  if (downs !== CHECKS || reminders !== CHECKS) throw new Error(`pure shard queued ${downs} downs, ${reminders} reminders`);
  console.log(
    `engine alone (Shard, no store): ${CHECKS} fail pings ${downMs.toFixed(0)} ms, CPU ${downCpu.toFixed(0)} ms (baseline); ` +
      `one advance queuing ${reminders} reminders ${reminderMs.toFixed(0)} ms, CPU ${reminderCpu.toFixed(0)} ms (${(reminderMs / downMs).toFixed(2)}x)`,
  );
}

async function main(): Promise<void> {
  await pureShard();
  const dir = mkdtempSync(join(tmpdir(), "hcd-reminders-"));
  const host = await ShardHost.open({
    dataDir: dir,
    durability: "flush",
    index: 0,
    count: 1,
    startAt: T0,
    newId: randomUUID,
    applyMissedDeadlines: true,
  });
  try {
    const uuids: string[] = [];
    for (let p = 0; p < CHECKS / PER_PROJECT; p++) {
      const project = await host.apply({
        kind: "createProject",
        project: { ...scenarioProject(`p${p}`), checkLimit: PER_PROJECT },
        at: T0,
      });
      const added = await host.apply({
        kind: "addChannel",
        channel: {
          id: randomUUID(),
          projectId: project.id,
          name: "ops",
          kind: "email",
          value: { kind: "email", address: "ops@example.com" },
          createdAt: T0,
        },
        at: T0,
      });
      if (!added.ok) throw new Error("channel");
      const made = await Promise.all(
        Array.from({ length: PER_PROJECT }, () =>
          host.apply({
            kind: "createCheck",
            projectId: project.id,
            spec: { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } },
            unique: [],
            at: T0,
          }),
        ),
      );
      for (const m of made) if (m.ok) uuids.push(m.value.check.uuid);
    }
    await host.checkpoint();
    // every check fails at the same instant: down, its down notification queued, its first reminder due at T0 + 1 h
    const downAt = T0 + 500;
    let started = performance.now(),
      cpuAt = cpuMs();
    for (let i = 0; i < uuids.length; i += 10_000) {
      await host.apply({
        kind: "pingBatch",
        pings: uuids.slice(i, i + 10_000).map((uuid) => pingOf({ uuid }, downAt, { signal: "fail" })),
      });
    }
    const downMs = performance.now() - started,
      downCpu = cpuMs() - cpuAt;
    await host.checkpoint();
    const afterDown = (await host.apply({ kind: "outbox" })).length;
    let reminderMs = 0,
      reminderCpu = 0;
    await profiled("committed", async () => {
      started = performance.now();
      cpuAt = cpuMs();
      await host.advance(downAt + HOUR); // one advance: every reminder due in that second, queued and committed
      reminderMs = performance.now() - started;
      reminderCpu = cpuMs() - cpuAt;
    });
    const all = await host.apply({ kind: "outbox" });
    const reminders = all.filter((entry) => entry.reminder === 1).length;
    if (afterDown !== uuids.length || reminders !== uuids.length) throw new Error(`queued ${afterDown} downs, ${reminders} reminders`);
    console.log(`${uuids.length} checks, hourly reminders, one channel each; DURABILITY=flush, one shard, machine shared (busy)`);
    console.log(
      `  ${uuids.length} fail pings in batches of 10,000 (down notifications queued): ${downMs.toFixed(0)} ms, CPU ${downCpu.toFixed(0)} ms (baseline)`,
    );
    console.log(
      `  one advance queuing ${reminders} reminders due in the same second: ${reminderMs.toFixed(0)} ms, CPU ${reminderCpu.toFixed(0)} ms ` +
        `(${(reminderMs / downMs).toFixed(2)}x the baseline)`,
    );
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The worker pool as the server runs it: down by deadlines in one advance (baseline), then every first reminder in one advance. */
async function workerPool(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hcd-reminders-pool-"));
  const shards = availableParallelism();
  const pool = await createWorkerPool({
    dataDir: dir,
    shards,
    durability: "flush",
    clock: "virtual",
    startAt: T0,
    notify: { siteRoot: "http://localhost", allowPrivateIps: false, smtpUrl: null },
    passive: true,
  });
  try {
    const targets: [string, string][] = []; // [projectId, uuid]
    for (let p = 0; p < CHECKS / PER_PROJECT; p++) {
      const project = await pool.createProject({ name: `p${p}`, checkLimit: PER_PROJECT, pingLogLimit: 100, pingBodyLimit: 10_000 }, T0);
      const added = await pool.addChannel(
        project.id,
        { kind: "email", name: "ops", value: { kind: "email", address: "ops@example.com" } },
        T0,
      );
      if (!added.ok) throw new Error("channel");
      const made = await Promise.all(
        Array.from({ length: PER_PROJECT }, () =>
          pool.createCheck(project.id, { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } }, [], T0),
        ),
      );
      for (const m of made) if (m.ok) targets.push([project.id, m.value.check.uuid]);
    }
    // every check pinged at the same instant (up), so their deadlines and then their reminders share a second
    const pingAt = T0 + 500;
    for (let i = 0; i < targets.length; i += 10_000) {
      const results = await Promise.all(
        targets.slice(i, i + 10_000).map(([projectId, uuid]) => pool.ping(projectId, pingOf({ uuid }, pingAt))),
      );
      if (results.some((r) => !r.ok)) throw new Error("a ping failed");
    }
    const downAt = pingAt + HOUR + MINUTE;
    await pool.advance(downAt - 1); // nothing due yet: this advance only moves the wheels
    let started = performance.now(),
      cpuAt = cpuMs();
    await pool.advance(downAt); // the baseline: every check down by its deadline, its down notification queued
    const downMs = performance.now() - started,
      downCpu = cpuMs() - cpuAt;
    const downs = (await pool.listOutbox()).length; // reading the outbox checkpoints it: nothing left to write below
    started = performance.now();
    cpuAt = cpuMs();
    await pool.advance(downAt + HOUR); // every first reminder, queued and committed
    const reminderMs = performance.now() - started,
      reminderCpu = cpuMs() - cpuAt;
    const reminders = (await pool.listOutbox()).filter((entry) => entry.reminder === 1).length;
    if (downs !== targets.length || reminders !== targets.length) throw new Error(`pool queued ${downs} downs, ${reminders} reminders`);
    console.log(`worker pool (${shards} shards, as the server runs), DURABILITY=flush:`);
    console.log(
      `  one advance flipping ${downs} checks down by their deadlines, notifications queued: ${downMs.toFixed(0)} ms, CPU ${downCpu.toFixed(0)} ms (baseline)`,
    );
    console.log(
      `  one advance queuing ${reminders} reminders due in the same second: ${reminderMs.toFixed(0)} ms, CPU ${reminderCpu.toFixed(0)} ms ` +
        `(${(reminderMs / downMs).toFixed(2)}x the baseline)`,
    );
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.REMINDERS_POOL_ONLY !== "1") await main();
await workerPool();
if (PROFILE_DIR !== "") for (const line of profileDetails(PROFILE_DIR)) console.log(line);
