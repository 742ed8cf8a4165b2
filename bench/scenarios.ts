// Workloads as plain data: timed shard commands, shared by the replay test and the engine bench.
import type { PingCommand, ShardCommand } from "../engine/commands.ts";
import type { CheckSpec, Millis, Project } from "../engine/model.ts";
import { DAY, HOUR, LIMITS, MINUTE } from "../engine/model.ts";

/** A workload: the shard's own commands, in order (`Shard.apply` takes each as it is). */
export type Scenario = { readonly name: string; readonly steps: readonly ShardCommand[] };

/** Returns deterministic ids "00000000-0000-4000-8000-<n>" so that a replay creates the same uuids. */
export function sequentialIds(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, "0")}`;
}

/** Returns the n-th id (1-based) that `sequentialIds()` hands out. */
export function nthId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** A small pseudo-random generator (mulberry32): the same seed gives the same workload. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function scenarioProject(id: string, overrides: Partial<Project> = {}): Project {
  return { id, name: id, apiKey: `rw-${id}`, apiKeyReadonly: `ro-${id}`, pingKey: `pk-${id}`, badgeKey: `bk-${id}`,
    checkLimit: 1_000_000, pingLogLimit: LIMITS.defaultPingLogLimit, pingBodyLimit: LIMITS.defaultPingBodyLimit,
    createdAt: 0, ...overrides };
}

export function pingOf(target: PingCommand["target"], at: Millis, extra: Partial<PingCommand> = {}): PingCommand {
  return { target, signal: "success", exitStatus: null, method: "GET", scheme: "http", remoteAddr: "10.0.0.1",
    ua: "bench", rid: null, body: null, at, ...extra };
}

/**
 * A week of mixed jobs: simple and cron checks by slug, pings that come late or fail, starts with
 * and without run ids, pauses and resumes, and an advance of the clock every simulated 10 minutes.
 */
export function mixedWeek(seed = 7, checks = 40): Scenario {
  const random = seeded(seed);
  const steps: ShardCommand[] = [];
  const t0 = Date.UTC(2026, 2, 20); // spans the EU spring DST change
  const projectId = "scenario-project";
  steps.push({ kind: "createProject", project: scenarioProject(projectId), at: t0 });
  const specs: CheckSpec[] = [];
  for (let i = 0; i < checks; i++) {
    const spec: CheckSpec = i % 3 === 0
      ? { slug: `job-${i}`, schedule: ["0 * * * *", "30 3 * * *", "*/15 * * * *"][i % 9 === 0 ? 1 : 0], tz: "Europe/Riga", graceMs: 5 * MINUTE }
      : { slug: `job-${i}`, timeoutMs: (1 + (i % 5)) * HOUR, graceMs: 10 * MINUTE, manualResume: i === 1 };
    specs.push(spec);
    steps.push({ kind: "createCheck", projectId, spec, unique: [], at: t0 });
  }
  const signals = ["success", "success", "success", "start", "fail", "log"] as const;
  for (let at = t0 + MINUTE; at < t0 + 7 * DAY; at += 10 * MINUTE) {
    for (let i = 0; i < checks; i++) {
      const r = random();
      if (r < 0.08) {
        const signal = signals[Math.floor(random() * signals.length)];
        const rid = random() < 0.5 ? null : `00000000-0000-4000-9000-${Math.floor(random() * 4).toString().padStart(12, "0")}`;
        steps.push({ kind: "ping", ping: pingOf({ pingKey: `pk-${projectId}`, slug: `job-${i}`, create: false }, at, { signal, rid }) });
      }
    }
    // each check takes two ids (uuid, badge key): check i has uuid nthId(2i + 1)
    if (at === t0 + MINUTE + 2 * DAY) steps.push({ kind: "pauseCheck", projectId, uuid: nthId(3), at });
    if (at === t0 + MINUTE + 3 * DAY) steps.push({ kind: "resumeCheck", projectId, uuid: nthId(3), at });
    steps.push({ kind: "advance", at });
  }
  return { name: "mixed week", steps };
}
