// A child process that runs an in-process pool on a DATA_DIR with a virtual clock and does what its parent
// asks over IPC, one request at a time: the restarts-model test kills it (a crash) or closes it (a clean
// stop) between any two steps, and starts another on the same directory at that instant or later.
// argv: <dataDir> <startAt>. Answers { id, value } or { id, error }; says { ready: true } once started.
import { createInProcessPool } from "../../app/pools.ts";
import { VirtualClock } from "../../host/clock.ts";
import { ClockMark } from "../../persistence/clock-mark.ts";
import type { Check, CheckSpec, Flip, Millis, PingRecord } from "../../engine/model.ts";
import type { Pool } from "../../host/pool-api.ts";
import type { Step } from "../engine/reference-model.ts";

/** What the parent may ask. */
export type DriverRequest =
  | { readonly id: number; readonly op: "setup"; readonly specs: readonly CheckSpec[]; readonly at: Millis }
  | {
      readonly id: number;
      readonly op: "step";
      readonly step: Step;
      readonly at: Millis;
      readonly projectId: string;
      readonly uuids: readonly string[];
    }
  | { readonly id: number; readonly op: "read"; readonly projectId: string; readonly uuids: readonly string[] }
  | { readonly id: number; readonly op: "close" };

/** A check as the pool shows it, with its whole flip log (newest first) and ping log (oldest first). */
export type DriverRead = { readonly check: Check; readonly flips: readonly Flip[]; readonly pings: readonly PingRecord[] };

const [dataDir, startAt] = [process.argv[2], Number(process.argv[3])];
// judged as a real clock's run (its mark kept in DATA_DIR/clock: a start later than the mark is hcd's own
// downtime), on a clock that stands at startAt: every instant comes with the parent's requests
const pool: Pool = await createInProcessPool({
  dataDir,
  shards: 2,
  durability: "flush",
  startAt,
  clock: "real",
  clockNow: new VirtualClock(startAt),
  mark: ClockMark.open(dataDir, "real"),
  intakeTrimEveryMs: 20, // the intake log lets go of committed segments between steps, so crashes meet it
  notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
});
const send = (message: unknown) => process.send?.(message);

async function handle(request: DriverRequest): Promise<unknown> {
  switch (request.op) {
    case "setup": {
      const project = await pool.createProject({ name: "model", checkLimit: 10, pingLogLimit: 1000, pingBodyLimit: 100 }, request.at);
      const uuids: string[] = [];
      for (const spec of request.specs) {
        const made = await pool.createCheck(project.id, spec, [], request.at);
        if (!made.ok) throw new Error(`spec refused: ${JSON.stringify(made.failure)}`);
        uuids.push(made.value.check.uuid);
      }
      return { projectId: project.id, uuids };
    }
    case "step":
      return applyStep(request);
    case "read": {
      const reads: DriverRead[] = [];
      for (const uuid of request.uuids) {
        const pings = await pool.listPings(request.projectId, uuid);
        const flips = await pool.listFlips(request.projectId, { uuid }, {});
        if (!pings.ok || !flips.ok) throw new Error("check gone");
        reads.push({ check: pings.value.check, flips: flips.value, pings: [...pings.value.pings].reverse() });
      }
      return reads;
    }
    case "close":
      await pool.close();
      return null;
  }
}

/** Applies one step of a history; true when accepted (a resume of a check not paused is not). */
async function applyStep({ step, at, projectId, uuids }: Extract<DriverRequest, { op: "step" }>): Promise<boolean> {
  switch (step.kind) {
    case "advance":
      await pool.advance(at);
      return true;
    case "ping": {
      const body = step.method === "POST" && step.body !== "" ? new TextEncoder().encode(step.body) : null;
      const answer = await pool.ping(projectId, {
        target: { uuid: uuids[step.check] },
        signal: step.signal,
        exitStatus: step.exitStatus,
        method: step.method,
        scheme: "http",
        remoteAddr: "10.0.0.1",
        ua: "model",
        rid: step.rid,
        body,
        at,
      });
      return answer.ok;
    }
    case "update":
      return (await pool.updateCheck(projectId, uuids[step.check], step.spec, at)).ok;
    case "pause":
      return (await pool.pauseCheck(projectId, uuids[step.check], at)).ok;
    case "resume":
      return (await pool.resumeCheck(projectId, uuids[step.check], at)).ok;
    case "mute":
      return (await pool.updateCheck(projectId, uuids[step.check], { mutedUntilAt: step.forMs === null ? null : at + step.forMs }, at)).ok;
  }
}

process.on("message", (request: DriverRequest) => {
  handle(request).then(
    (value) => {
      send({ id: request.id, value });
      if (request.op === "close") process.disconnect();
    },
    (error: unknown) => send({ id: request.id, error: String(error instanceof Error ? error.stack : error) }),
  );
});
send({ ready: true });
