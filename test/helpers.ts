// Factories with overrides and temp folders shared by the tests. No shared mutable fixtures.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Channel, Check, Flip, PingRecord, Project } from "../engine/model.ts";
import { checkWith, LIMITS } from "../engine/model.ts";
import type { Pool, PingCommand, PingResult } from "../host/pool-api.ts";
import type { Outcome } from "../engine/outcome.ts";
import type { PingWrite } from "../engine/changes.ts";
import { fail } from "../engine/outcome.ts";

let counter = 0;
/** Returns a fresh lower-case uuid-shaped id, deterministic within one process. */
export function uuid(): string {
  counter += 1;
  const hex = counter.toString(16).padStart(12, "0");
  return `00000000-0000-4000-8000-${hex}`;
}

/** Returns a project with test keys; override any field. */
export function project(overrides: Partial<Project> = {}): Project {
  const id = overrides.id ?? uuid();
  return {
    id,
    name: "test",
    apiKey: `rw-${id}`,
    apiKeyReadonly: `ro-${id}`,
    pingKey: `pk-${id}`,
    badgeKey: `bk-${id}`,
    checkLimit: LIMITS.defaultCheckLimit,
    pingLogLimit: LIMITS.defaultPingLogLimit,
    pingBodyLimit: LIMITS.defaultPingBodyLimit,
    createdAt: 0,
    ...overrides,
  };
}

/** Returns a new simple check (timeout 1 day, grace 1 hour); override any field. */
export function check(overrides: Partial<Check> = {}): Check {
  return checkWith(
    {
      uuid: uuid(),
      projectId: "p",
      badgeKey: uuid(),
      name: "",
      slug: "",
      tags: "",
      desc: "",
      kind: "simple",
      timeoutMs: LIMITS.defaultTimeoutMs,
      graceMs: LIMITS.defaultGraceMs,
      schedule: "* * * * *",
      tz: "UTC",
      manualResume: false,
      methods: "",
      startKw: "",
      successKw: "",
      failureKw: "",
      filterSubject: false,
      filterBody: false,
      filterHttpBody: false,
      filterDefaultFail: false,
      channels: [],
      createdAt: 0,
      status: "new",
      nPings: 0,
      nFlips: 0,
      lastPingAt: null,
      lastStartAt: null,
      lastStartRid: null,
      lastDurationMs: null,
    },
    overrides,
  );
}

/** Returns a ping log entry; override any field. */
export function ping(overrides: Partial<PingRecord> = {}): PingRecord {
  return {
    n: 1,
    at: 0,
    kind: "success",
    scheme: "http",
    remoteAddr: "127.0.0.1",
    method: "GET",
    ua: "",
    rid: null,
    exitStatus: null,
    bodySize: 0,
    ...overrides,
  };
}

/** Returns the history write of ping `n` of check `checkUuid` (at T + n seconds, `body` stored whole, 1,000 kept). */
export function pingWrite(
  projectId: string,
  checkUuid: string,
  n: number,
  t: number,
  body: Uint8Array | null = null,
  ua = "test",
): PingWrite {
  return { projectId, checkUuid, record: ping({ n, at: t + n * 1_000, ua, bodySize: body?.length ?? 0 }), body, keep: 1_000 };
}

/** Returns a flip; override any field. */
export function flip(overrides: Partial<Flip> = {}): Flip {
  return { checkUuid: uuid(), n: 1, at: 0, from: "new", to: "up", reason: "", notify: false, ...overrides };
}

/** Returns an email channel; override any field. */
export function channel(overrides: Partial<Channel> = {}): Channel {
  return {
    id: uuid(),
    projectId: "p",
    name: "",
    kind: "email",
    value: { kind: "email", address: "ops@example.com" },
    createdAt: 0,
    ...overrides,
  };
}

/**
 * Asks `condition` every 20 ms until it holds; fails after `failAfterMs` (a failure deadline for a marker
 * that must come, not a wait that passes).
 */
export async function until(what: string, condition: () => boolean | Promise<boolean>, failAfterMs = 10_000): Promise<void> {
  const failAt = Date.now() + failAfterMs;
  while (!(await condition())) {
    if (Date.now() > failAt) throw new Error(`not within ${failAfterMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Returns the value of the sample `series` in a /metrics exposition (name and labels exactly as exposed), or undefined. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Returns a new empty temp folder and a function that removes it. */
export function tempDir(prefix = "hcd-test-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Returns a local port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Pings through a pool as an edge does: the target's project resolved first (unknown → not_found). */
export async function pingThrough(pool: Pool, command: PingCommand): Promise<Outcome<PingResult>> {
  const project = "uuid" in command.target ? pool.projectOfCheck(command.target.uuid) : pool.projectByPingKey(command.target.pingKey);
  return project === null ? fail({ code: "not_found", what: "check" }) : pool.ping(project.id, command);
}
