// Runs one random history through a real Shard and through the reference model, step by step, and throws
// at the first difference in status (stored and as the API shows it), n_pings, last_ping, the open run or
// the flips or the notifications heard (mutes included), or at the first broken invariant: flips in time order, none stamped before the check's last
// recorded event, each ping logged once with n = its n_pings, the wheel's next instant the checks' earliest
// deadline. Shared by the fast test and the stress test.
import * as assert from "uvu/assert";
import fc from "fast-check";
import { Shard } from "../../engine/shard.ts";
import { statusAt } from "../../engine/status.ts";
import { deadlineAt } from "../../engine/alerting.ts";
import type { CheckSpec, Millis } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import type { Step } from "./reference-model.ts";
import { ReferenceModel, specArb, stepArb, T0 } from "./reference-model.ts";

export const CHECKS = 2;

/** A history: the checks' settings at creation and the steps that follow. */
export const historyArb = fc.record({
  specs: fc.array(specArb, { minLength: CHECKS, maxLength: CHECKS }),
  steps: fc.array(stepArb(CHECKS), { maxLength: 60, size: "max" }),
});

/** What the engine recorded of each check so far, to check the invariants against, and what its channel heard. */
type Recorded = {
  lastEventAt: Millis;
  flips: [Millis, string, string, string][];
  pingNs: number[];
  notes: (string | null)[];
  notices: string[];
};

/** Throws (an assertion error) at the first step where the shard and the model disagree. */
export function runOnShard(specs: readonly CheckSpec[], steps: readonly Step[]): void {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const uuids = specs.map((spec) => {
    const made = shard.createCheck("p", { ...spec, channels: { all: true } }, [], T0);
    if (!made.ok) throw new Error(`spec refused: ${JSON.stringify(made.failure)}`);
    return made.value.check.uuid;
  });
  shard.takeChanges();
  const model = new ReferenceModel(specs);
  const recorded: Recorded[] = uuids.map(() => ({ lastEventAt: T0, flips: [], pingNs: [], notes: [], notices: [] }));
  for (const [i, step] of steps.entries()) {
    const accepted = model.apply(step);
    const at = model.now;
    const answer = applyToShard(shard, step, uuids, at);
    const where = `step ${i} (${JSON.stringify(step)}) at T0+${at - T0} ms`;
    assert.is(answer, accepted, `${where}: accepted`);
    record(shard, uuids, recorded, where);
    for (const [index, uuid] of uuids.entries()) compare(shard, uuid, model, index, recorded[index], `${where}, check ${index}`);
    assert.is(shard.nextDueAt(), earliestDeadline(shard, uuids), `${where}: the wheel's next instant is the checks' earliest deadline`);
  }
}

/** The earliest of the checks' deadlines (engine/alerting.ts deadlineAt), or null when none has one. */
function earliestDeadline(shard: Shard, uuids: readonly string[]): Millis | null {
  let earliest: Millis | null = null;
  for (const uuid of uuids) {
    const found = shard.getCheck("p", uuid);
    const at = found.ok ? deadlineAt(found.value) : null;
    if (at !== null && (earliest === null || at < earliest)) earliest = at;
  }
  return earliest;
}

function applyToShard(shard: Shard, step: Step, uuids: readonly string[], at: Millis): boolean {
  switch (step.kind) {
    case "advance":
      shard.advance(at);
      return true;
    case "ping": {
      const body = step.method === "POST" && step.body !== "" ? new TextEncoder().encode(step.body) : null;
      return shard.ping(
        pingOf({ uuid: uuids[step.check] }, at, {
          signal: step.signal,
          exitStatus: step.exitStatus,
          rid: step.rid,
          method: step.method,
          body,
        }),
      ).ok;
    }
    case "update":
      return shard.updateCheck("p", uuids[step.check], step.spec, at).ok;
    case "pause":
      return shard.pauseCheck("p", uuids[step.check], at).ok;
    case "resume":
      return shard.resumeCheck("p", uuids[step.check], at).ok;
    case "mute":
      return shard.updateCheck("p", uuids[step.check], { mutedUntilAt: step.forMs === null ? null : at + step.forMs }, at).ok;
  }
}

/**
 * Takes the step's changes and checks the invariants on them, before anything is compared with the model.
 */
function record(shard: Shard, uuids: readonly string[], recorded: Recorded[], where: string): void {
  const changes = shard.takeChanges();
  // flips first: a deadline is applied before the command that noticed it
  for (const f of changes.flips) {
    const seen = recorded[uuids.indexOf(f.checkUuid)];
    assert.ok(
      f.at >= seen.lastEventAt,
      `${where}: flip ${f.from}→${f.to} at T0+${f.at - T0} stamped before the check's last recorded event (T0+${seen.lastEventAt - T0})`,
    );
    assert.is(f.n, seen.flips.length + 1, `${where}: flips numbered in order`);
    seen.flips.push([f.at, f.from, f.to, f.reason]);
    seen.lastEventAt = Math.max(seen.lastEventAt, f.at);
  }
  for (const entry of changes.outbox) {
    assert.is(entry.reminder, undefined, `${where}: no reminders without reminder_interval`);
    recorded[uuids.indexOf(entry.check.uuid)].notices.push(entry.flip.to);
  }
  for (const p of changes.pings) {
    const seen = recorded[uuids.indexOf(p.checkUuid)];
    assert.ok(p.record.at >= seen.lastEventAt, `${where}: ping stamped before the check's last recorded event`);
    seen.pingNs.push(p.record.n);
    seen.notes.push(p.record.note ?? null);
    seen.lastEventAt = p.record.at;
  }
}

function compare(shard: Shard, uuid: string, model: ReferenceModel, index: number, seen: Recorded, where: string): void {
  const found = shard.getCheck("p", uuid);
  if (!found.ok) throw new Error(`${where}: check gone`);
  const check = found.value,
    want = model.checks[index];
  assert.equal(seen.flips, want.flips, `${where}: flips`);
  assert.equal(seen.notices, want.notices, `${where}: notifications heard`);
  assert.is(check.status, want.status, `${where}: stored status`);
  assert.is(statusAt(check, model.now), model.apiStatus(index), `${where}: status at now`);
  assert.is(check.nPings, want.nPings, `${where}: n_pings`);
  assert.equal(
    seen.pingNs,
    Array.from({ length: want.nPings }, (_, n) => n + 1),
    `${where}: each ping logged once, numbered by n_pings`,
  );
  assert.is(check.lastPingAt, want.lastPingAt, `${where}: last_ping`);
  assert.is(check.lastStartAt, want.lastStartAt, `${where}: the open run`);
  assert.equal(seen.notes, want.notes, `${where}: each ping's note (overlap, too fast, too often)`);
}
