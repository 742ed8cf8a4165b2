// Workloads as plain data: scenario files (the format `hcd replay` reads) and the shapes the benches build.
import type { PingCommand } from "../host/pool-api.ts";
import type { Millis, Project } from "../engine/model.ts";
import { LIMITS } from "../engine/model.ts";
import type { ScenarioFile, ScenarioFileCommand } from "../app/scenario-file.ts";

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
  return {
    id,
    name: id,
    apiKey: `rw-${id}`,
    apiKeyReadonly: `ro-${id}`,
    pingKey: `pk-${id}`,
    badgeKey: `bk-${id}`,
    checkLimit: 1_000_000,
    pingLogLimit: LIMITS.defaultPingLogLimit,
    pingBodyLimit: LIMITS.defaultPingBodyLimit,
    createdAt: 0,
    ...overrides,
  };
}

export function pingOf(target: PingCommand["target"], at: Millis, extra: Partial<PingCommand> = {}): PingCommand {
  return {
    target,
    signal: "success",
    exitStatus: null,
    method: "GET",
    scheme: "http",
    remoteAddr: "10.0.0.1",
    ua: "bench",
    rid: null,
    body: null,
    at,
    ...extra,
  };
}

/**
 * A week of mixed jobs as a scenario file: simple and cron checks (one in four notifying a webhook), pings
 * that come late or fail, starts with and without run ids, a pause and a resume, and an advance of the
 * clock every simulated 10 minutes.
 */
export function mixedWeek(seed = 7, checks = 40): ScenarioFile {
  const random = seeded(seed);
  const commands: ScenarioFileCommand[] = [];
  const minute = 60;
  const day = 86_400;
  commands.push({ at: 0, do: "channel", kind: "webhook", name: "hook", value: "https://example.com/hook" });
  for (let i = 0; i < checks; i++) {
    const fields =
      i % 3 === 0
        ? {
            slug: `job-${i}`,
            schedule: ["0 * * * *", "30 3 * * *", "*/15 * * * *"][i % 9 === 0 ? 1 : 0],
            tz: "Europe/Riga",
            grace: 5 * minute,
          }
        : { slug: `job-${i}`, timeout: (1 + (i % 5)) * 3600, grace: 10 * minute, manual_resume: i === 1 };
    commands.push({ at: 0, do: "create", check: `job-${i}`, fields: { ...fields, channels: i % 4 === 0 ? "hook" : "" } });
  }
  const signals = ["success", "success", "success", "start", "fail", "log"] as const;
  for (let at = minute; at < 7 * day; at += 10 * minute) {
    for (let i = 0; i < checks; i++) {
      const r = random();
      if (r < 0.08) {
        const signal = signals[Math.floor(random() * signals.length)];
        const rid =
          random() < 0.5
            ? undefined
            : `00000000-0000-4000-9000-${Math.floor(random() * 4)
                .toString()
                .padStart(12, "0")}`;
        commands.push({ at, do: "ping", check: `job-${i}`, signal, ...(rid === undefined ? {} : { rid }) });
      }
    }
    if (at === minute + 2 * day) commands.push({ at, do: "pause", check: "job-1" });
    if (at === minute + 3 * day) commands.push({ at, do: "resume", check: "job-1" });
    commands.push({ at, do: "advance" });
  }
  // spans the EU spring DST change
  return { start: "2026-03-20T00:00:00Z", project: { name: "scenario", check_limit: 1_000_000 }, commands };
}
