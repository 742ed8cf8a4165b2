// Runs one random history with restarts and crashes through a real pool (a child process on a temp
// DATA_DIR, virtual clock: pool-driver.ts) and through the reference model, and throws at the first
// difference: status (stored and shown), n_pings, last_ping, the open run, the flips; and at the first
// broken invariant: flips in time order, every acknowledged ping logged exactly once (n = 1..n_pings).
// A restart closes the pool cleanly, a crash is SIGKILL between two steps, or while a ping is in flight
// (that ping may be kept or lost, never kept twice). Each starts again at once or after a gap, which is
// hcd's own downtime (the driver keeps DATA_DIR/clock as a real clock's mark, so the gap is seen as one).
import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { statusAt } from "../../engine/status.ts";
import type { CheckSpec } from "../../engine/model.ts";
import type { Step } from "../engine/reference-model.ts";
import { ReferenceModel, specArb, stepArb, T0 } from "../engine/reference-model.ts";
import type { DriverRead } from "./pool-driver.ts";
import { tempDir } from "../helpers.ts";

const DRIVER = fileURLToPath(new URL("./pool-driver.js", import.meta.url));
const CHECKS = 2;

type PingStep = Extract<Step, { kind: "ping" }>;
/** A clean stop or a crash, and how long hcd then stays down (0: it starts again at once). */
export type RestartStep =
  | Step
  | { readonly kind: "restart"; readonly gapMs: number }
  | { readonly kind: "crash"; readonly inFlight: PingStep | null; readonly delayMs: number; readonly gapMs: number };

/** How long hcd stays down: not at all, minutes, or hours to days. */
const gapArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 * 60_000 }), fc.integer({ min: 3_600_000, max: 3 * 86_400_000 }));

/** A history with restarts and crashes at random points. */
export function restartHistoryArb(maxSteps: number) {
  const ping = stepArb(CHECKS).filter((s): s is PingStep => s.kind === "ping");
  return fc.record({
    specs: fc.array(specArb, { minLength: CHECKS, maxLength: CHECKS }),
    steps: fc.array(
      fc.oneof(
        { weight: 5, arbitrary: stepArb(CHECKS) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("restart" as const), gapMs: gapArb }) },
        {
          weight: 2,
          arbitrary: fc.record({
            kind: fc.constant("crash" as const),
            inFlight: fc.option(ping, { freq: 2 }),
            delayMs: fc.integer({ min: 0, max: 15 }),
            gapMs: gapArb,
          }),
        },
      ),
      { maxLength: maxSteps, size: "max" },
    ),
  });
}

/** One running driver: requests answered in order, and its exit. */
export class Driver {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly exited: Promise<void>;
  readonly ready: Promise<void>;
  #nextId = 1;
  #stderr = "";

  constructor(dataDir: string, startAt: number) {
    this.#child = fork(DRIVER, [dataDir, String(startAt)], { serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"] });
    this.#child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.#child.once("exit", () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      this.#child.on("message", (message: { ready?: true; id?: number; value?: unknown; error?: string }) => {
        if (message.ready) return resolve();
        const waiting = this.#waiting.get(message.id ?? 0);
        this.#waiting.delete(message.id ?? 0);
        if (message.error !== undefined) waiting?.reject(new Error(message.error));
        else waiting?.resolve(message.value);
      });
      void this.exited.then(() => {
        reject(new Error(`driver exited before it was ready: ${this.#stderr}`));
        for (const w of this.#waiting.values()) w.reject(new Error(`driver exited: ${this.#stderr}`));
      });
    });
  }

  /** Sends a request; the promise settles with its answer (or rejects when the driver dies first). */
  request<T>(request: Record<string, unknown>): Promise<T> {
    const id = this.#nextId++;
    const answer = new Promise<T>((resolve, reject) => this.#waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
    this.#child.send({ id, ...request });
    return answer;
  }

  async crash(): Promise<void> {
    this.#child.kill("SIGKILL");
    await this.exited;
  }
}

export async function started(dataDir: string, at: number): Promise<Driver> {
  const driver = new Driver(dataDir, at);
  await driver.ready;
  return driver;
}

/** Throws at the first step where the pool and the model disagree; returns how many restarts and crashes it made. */
export async function runOnPool(specs: readonly CheckSpec[], steps: readonly RestartStep[]): Promise<void> {
  const dir = tempDir("hcd-model-");
  let driver = await started(dir.path, T0);
  try {
    const model = new ReferenceModel(specs);
    const { projectId, uuids } = await driver.request<{ projectId: string; uuids: string[] }>({ op: "setup", specs, at: T0 });
    for (const [i, step] of steps.entries()) {
      const where = `step ${i} (${JSON.stringify(step)}) at T0+${model.now - T0} ms`;
      if (step.kind === "restart" || step.kind === "crash") {
        const before = model.checks.map((c) => c.nPings);
        if (step.kind === "restart") {
          await driver.request({ op: "close" });
          await driver.exited;
        } else {
          const inFlight =
            step.inFlight === null ? null : driver.request({ op: "step", step: step.inFlight, at: model.now, projectId, uuids });
          inFlight?.catch(() => {}); // no answer: the process is gone
          if (step.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
          await driver.crash();
        }
        driver = await started(dir.path, model.now + step.gapMs); // hcd down for the gap, judging nothing
        if (step.kind === "crash" && step.inFlight !== null) {
          const [read] = await reads(driver, projectId, [uuids[step.inFlight.check]]);
          const n = read.check.nPings - before[step.inFlight.check];
          assert.ok(n === 0 || n === 1, `${where}: a ping in flight at a crash is kept once or lost, got ${n}`);
          if (n === 1) model.apply(step.inFlight); // stamped before the crash
        }
        model.restart(step.gapMs);
      } else {
        const accepted = model.apply(step);
        const answer = await driver.request<boolean>({ op: "step", step, at: model.now, projectId, uuids });
        assert.is(answer, accepted, `${where}: accepted`);
      }
      // a crash right after an acknowledged step comes before any read: the read would make the shard commit
      if (steps[i + 1]?.kind === "crash") continue;
      const now = model.now;
      for (const [index, read] of (await reads(driver, projectId, uuids)).entries()) {
        const want = model.checks[index],
          { check } = read,
          at = `${where}, check ${index}`;
        const flips = [...read.flips].reverse().map((f) => [f.at, f.from, f.to, f.reason]);
        assert.equal(flips, want.flips, `${at}: flips`);
        assert.ok(
          flips.every((f, k) => k === 0 || f[0] >= flips[k - 1][0]),
          `${at}: flips in time order`,
        );
        assert.is(check.status, want.status, `${at}: stored status`);
        assert.is(statusAt(check, now), model.apiStatus(index), `${at}: status at now`);
        assert.is(check.nPings, want.nPings, `${at}: n_pings`);
        assert.equal(
          read.pings.map((p) => p.n),
          Array.from({ length: want.nPings }, (_, n) => n + 1),
          `${at}: each acknowledged ping logged once`,
        );
        assert.is(check.lastPingAt, want.lastPingAt, `${at}: last_ping`);
        assert.is(check.lastStartAt, want.lastStartAt, `${at}: the open run`);
        assert.equal(
          read.pings.map((p) => p.note ?? null),
          want.notes,
          `${at}: each ping's note (overlap, too fast, too often), kept across restarts`,
        );
      }
    }
    await driver.request({ op: "close" });
    await driver.exited;
  } finally {
    await driver.crash();
    dir.remove();
  }
}

function reads(driver: Driver, projectId: string, uuids: readonly string[]): Promise<DriverRead[]> {
  return driver.request<DriverRead[]>({ op: "read", projectId, uuids });
}
