// Escalation on the Shard alone (CONTRACT "Alerting, third part"): while a check stays down and its outage
// is not acknowledged, each step of its policy (its own, else its project's) notifies its integrations once
// the outage has lasted the step's `after`; acknowledging stops it, a mute or a dependency makes it wait,
// the integrations it reached hear of the recovery, and a shard loaded from the stored checks neither loses
// nor repeats a step. Instants in minutes after T0.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, CheckSpec, Millis } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { escalatedChannels, onEscalationDue, planEscalation } from "../../engine/escalation.ts";

const T0 = Date.UTC(2026, 5, 1);
const at = (minute: number): Millis => T0 + minute * MINUTE;
const min = (instant: Millis) => (instant - T0) / MINUTE;

const channel = (id: string): Channel => ({
  id,
  projectId: "p",
  name: id,
  kind: "email",
  value: { kind: "email", address: `${id}@example.com` },
  createdAt: T0,
});
const POLICY: CheckSpec["escalation"] = [
  { afterMs: 15 * MINUTE, channels: { refs: ["second"] } },
  { afterMs: 60 * MINUTE, channels: { refs: ["third"] } },
];

function setUp(spec: CheckSpec = { escalation: POLICY }, shard = new Shard({ newId: sequentialIds(), now: T0 })) {
  shard.createProject(scenarioProject("p"), T0);
  for (const id of ["first", "second", "third"]) shard.addChannel(channel(id), T0);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { refs: ["first"] }, ...spec }, [], T0);
  if (!made.ok) throw new Error(`create failed: ${JSON.stringify(made.failure)}`);
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

/** "<minute> <channel> <what>" for each entry: what = the flip's status, or "e<level>" for an escalation step. */
function sent(entries: readonly OutboxEntry[]): string[] {
  return entries.map((e) => `${min(e.flip.at)} ${e.channel.id} ${e.escalation === undefined ? e.flip.to : `e${e.escalation}`}`);
}

/** Goes down by a failure at minute 1, then advances minute by minute to `until`; returns what was queued. */
function outage(shard: Shard, uuid: string, until: number, between: (minute: number) => void = () => {}): string[] {
  const out: OutboxEntry[] = [];
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  out.push(...shard.takeChanges().outbox);
  for (let minute = 2; minute <= until; minute++) {
    between(minute);
    shard.advance(at(minute));
    out.push(...shard.takeChanges().outbox);
  }
  return sent(out);
}

test("each step notifies its integrations once the outage has lasted its `after`, and nothing more follows", () => {
  const { shard, uuid } = setUp();
  assert.equal(outage(shard, uuid, 180), ["1 first down", "16 second e1", "61 third e2"]);
});

test("an escalation entry has an id of its own and the outage's start", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  shard.takeChanges();
  shard.advance(at(16));
  const [entry] = shard.takeChanges().outbox;
  assert.ok(entry.id.endsWith("-second-e1"), entry.id);
  assert.is(entry.downSinceAt, at(1));
  assert.equal([entry.flip.from, entry.flip.to, entry.flip.at], ["down", "down", at(16)]);
});

test("an acknowledged outage keeps no escalation due: nothing is left in the wheel", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  assert.is(shard.nextDueAt(), at(16));
  shard.acknowledgeCheck("p", uuid, "api", at(2));
  assert.is(shard.nextDueAt(), null);
});

test("one millisecond before a step is due nothing is sent; at its instant it is", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  shard.takeChanges();
  shard.advance(at(16) - 1);
  assert.equal(shard.takeChanges().outbox, []);
  shard.advance(at(16));
  assert.equal(sent(shard.takeChanges().outbox), ["16 second e1"]);
});

test("acknowledging stops the escalation: before the first step, none is sent; after it, no further one", () => {
  const early = setUp();
  assert.equal(
    outage(early.shard, early.uuid, 180, (m) => {
      if (m === 10) early.shard.acknowledgeCheck("p", early.uuid, "api", at(10));
    }),
    ["1 first down"],
  );
  const late = setUp();
  assert.equal(
    outage(late.shard, late.uuid, 180, (m) => {
      if (m === 30) late.shard.acknowledgeCheck("p", late.uuid, "api", at(30));
    }),
    ["1 first down", "16 second e1"],
  );
});

test("the integrations an escalation reached hear of the recovery; those it did not reach do not", () => {
  const { shard, uuid } = setUp();
  const before = outage(shard, uuid, 30);
  shard.ping(pingOf({ uuid }, at(31), { signal: "success" }));
  assert.equal([...before, ...sent(shard.takeChanges().outbox)], ["1 first down", "16 second e1", "31 first up", "31 second up"]);
});

test("a new outage escalates from its own start again", () => {
  const { shard, uuid } = setUp();
  outage(shard, uuid, 20);
  shard.ping(pingOf({ uuid }, at(21), { signal: "success" }));
  shard.ping(pingOf({ uuid }, at(22), { signal: "fail" }));
  shard.takeChanges();
  shard.advance(at(36));
  assert.equal(sent(shard.takeChanges().outbox), []);
  shard.advance(at(37));
  assert.equal(sent(shard.takeChanges().outbox), ["37 second e1"]);
});

test("the project's policy applies to a check without its own; a check's [] means none", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  const { uuid } = setUp({}, shard);
  const none = shard.createCheck("p", { timeoutMs: DAY, channels: { refs: ["first"] }, escalation: [] }, [], T0);
  assert.ok(shard.changeProject("p", { kind: "setEscalation", steps: [{ afterMs: 5 * MINUTE, channels: { refs: ["third"] } }] }, T0).ok);
  shard.takeChanges();
  if (!none.ok) throw new Error("create failed");
  shard.ping(pingOf({ uuid: none.value.check.uuid }, at(1), { signal: "fail" }));
  assert.equal(outage(shard, uuid, 30), ["1 first down", "1 first down", "6 third e1"]);
});

test("a policy set during an outage counts from its start: a step already due is sent at once", () => {
  const { shard, uuid } = setUp({});
  const out = outage(shard, uuid, 20, (m) => {
    if (m === 20) shard.updateCheck("p", uuid, { escalation: [{ afterMs: 10 * MINUTE, channels: { refs: ["second"] } }] }, at(19));
  });
  assert.equal(out, ["1 first down", "19 second e1"]);
});

test("a step due in a mute waits for the mute's end, and is sent then if the check is still down", () => {
  const { shard, uuid } = setUp({ escalation: POLICY, mutedUntilAt: at(40) });
  assert.equal(outage(shard, uuid, 70), ["40 first down", "40 second e1", "61 third e2"]);
});

test("a dependency that is down holds the escalation; released, the steps due by then are sent at once", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  const { uuid: parent } = setUp({}, shard);
  const child = shard.createCheck("p", { timeoutMs: DAY, channels: { refs: ["first"] }, escalation: POLICY, dependsOn: [parent] }, [], T0);
  if (!child.ok) throw new Error("create failed");
  shard.ping(pingOf({ uuid: parent }, at(0), { signal: "fail" }));
  shard.ping(pingOf({ uuid: child.value.check.uuid }, at(1), { signal: "fail" }));
  shard.takeChanges();
  shard.advance(at(70));
  assert.equal(sent(shard.takeChanges().outbox), [], "held: no down notification, no step");
  shard.ping(pingOf({ uuid: parent }, at(71), { signal: "success" }));
  shard.advance(at(71)); // the steps due are the wheel's, as a reminder: fired by the next advance, stamped at the release
  assert.equal(
    sent(shard.takeChanges().outbox).filter((line) => / e\d$/.test(line)),
    ["71 second e1", "71 third e2"],
  );
});

test("a shard loaded from the stored checks sends a step due after the load once, and one sent before it never again", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  shard.advance(at(10));
  shard.takeChanges();
  const reload = (from: Shard, now: Millis) => {
    const fresh = new Shard({ newId: sequentialIds(), now });
    const { projects, channels, checks } = from.snapshot();
    fresh.load(projects[0], channels, checks);
    return fresh;
  };
  const afterRestart = reload(shard, at(10));
  afterRestart.advance(at(16));
  assert.equal(sent(afterRestart.takeChanges().outbox), ["16 second e1"]);
  const again = reload(afterRestart, at(17));
  again.advance(at(50));
  assert.equal(sent(again.takeChanges().outbox), [], "the first step is not sent twice");
  again.advance(at(61));
  assert.equal(sent(again.takeChanges().outbox), ["61 third e2"]);
});

test("a policy naming an unknown integration is refused with the field escalation; removing an integration drops it from policies", () => {
  const { shard, uuid } = setUp();
  const refused = shard.updateCheck("p", uuid, { escalation: [{ afterMs: MINUTE, channels: { refs: ["nope"] } }] }, T0);
  assert.equal(refused.ok ? null : refused.failure, { code: "invalid", field: "escalation", reason: "invalid channel identifier: nope" });
  assert.ok(
    shard.changeProject("p", { kind: "setEscalation", steps: [{ afterMs: MINUTE, channels: { refs: ["second", "third"] } }] }, T0).ok,
  );
  shard.removeChannel("p", "second", T0);
  const check = shard.listChecks("p", { tags: [] })[0];
  assert.equal(check.escalation, [{ afterMs: 60 * MINUTE, channels: ["third"] }]);
  assert.equal(shard.projects()[0].escalation, [{ afterMs: MINUTE, channels: ["third"] }]);
});

test("a reminder and a step due at the same instant are both sent", () => {
  const { shard, uuid } = setUp({ escalation: POLICY, reminderIntervalMs: 15 * MINUTE });
  const out = outage(shard, uuid, 20);
  assert.equal(out.filter((line) => line.startsWith("16 ")).sort(), ["16 first down", "16 second e1"]);
});

test("a policy given to a check that is up, acknowledged or held plans nothing; the wheel stays as it was", () => {
  const { shard, uuid } = setUp({});
  shard.ping(pingOf({ uuid }, at(1), {}));
  const upAt = shard.nextDueAt();
  shard.updateCheck("p", uuid, { escalation: POLICY }, at(2));
  assert.is(shard.nextDueAt(), upAt, "up: only its period's deadline");
  assert.is(shard.listChecks("p", { tags: [] })[0].alert?.escalateAt, undefined);
  shard.ping(pingOf({ uuid }, at(3), { signal: "fail" }));
  shard.acknowledgeCheck("p", uuid, "api", at(4));
  shard.updateCheck("p", uuid, { escalation: [{ afterMs: 30 * MINUTE, channels: { refs: ["third"] } }] }, at(5));
  assert.is(shard.nextDueAt(), null, "acknowledged: nothing due");
  const shard2 = new Shard({ newId: sequentialIds(), now: T0 });
  const { uuid: parent } = setUp({}, shard2);
  const child = shard2.createCheck("p", { timeoutMs: DAY, channels: { refs: ["first"] }, dependsOn: [parent] }, [], T0);
  if (!child.ok) throw new Error("create failed");
  shard2.ping(pingOf({ uuid: parent }, at(0), { signal: "fail" }));
  shard2.ping(pingOf({ uuid: child.value.check.uuid }, at(1), { signal: "fail" }));
  shard2.updateCheck("p", child.value.check.uuid, { escalation: POLICY }, at(2));
  assert.is(
    shard2.getCheck("p", child.value.check.uuid).ok &&
      shard2.listChecks("p", { tags: [] }).find((c) => c.uuid === child.value.check.uuid)?.alert?.escalateAt,
    undefined,
    "held: nothing planned",
  );
});

test("an integration both assigned to the check and in a step hears of the recovery once", () => {
  const { shard, uuid } = setUp({ channels: { refs: ["first", "second"] }, escalation: POLICY });
  outage(shard, uuid, 20);
  shard.ping(pingOf({ uuid }, at(21), { signal: "success" }));
  assert.equal(sent(shard.takeChanges().outbox).sort(), ["21 first up", "21 second up"]);
});

const down = (alert: Partial<NonNullable<import("../../engine/model.ts").Check["alert"]>>, status: "down" | "up" = "down") => {
  const { shard, uuid } = setUp({});
  const check = shard.getCheck("p", uuid);
  if (!check.ok) throw new Error("no check");
  return { ...check.value, status, alert: { failures: 0, downSinceAt: at(1), dueAt: null, held: false, reminders: 0, ...alert } };
};
const STEPS = [
  { afterMs: 15 * MINUTE, channels: ["second"] },
  { afterMs: 60 * MINUTE, channels: ["third"] },
];

test("planEscalation: the same plan is the same check; a plan that ends leaves no key behind", () => {
  const planned = down({ escalateAt: at(16) });
  assert.is(planEscalation(planned, STEPS, at(2)), planned, "nothing to change: the check itself");
  const over = planEscalation(down({ escalateAt: at(16), escalated: 2 }), STEPS, at(70));
  assert.equal(
    over.alert,
    { failures: 0, downSinceAt: at(1), dueAt: null, held: false, reminders: 0, escalated: 2 },
    "past the last step: no escalateAt at all",
  );
  assert.equal(planEscalation(down({}, "up"), STEPS, at(2)).alert?.escalateAt, undefined);
  assert.equal(planEscalation(down({ acknowledged: { at: at(2), by: "api" } }), STEPS, at(2)).alert?.escalateAt, undefined);
  assert.equal(planEscalation(down({ heldBy: "x" }), STEPS, at(2)).alert?.escalateAt, undefined);
});

test("onEscalationDue: nothing reached for a check no longer down, acknowledged or held; every step due at once after a long wait", () => {
  for (const [alert, status] of [
    [{ escalateAt: at(16) }, "up"],
    [{ escalateAt: at(16), acknowledged: { at: at(2), by: "api" } }, "down"],
    [{ escalateAt: at(16), heldBy: "x" }, "down"],
  ] as const) {
    const due = onEscalationDue(down(alert, status), STEPS, at(16), null);
    assert.equal([due.reached, due.check.alert?.escalateAt, due.check.alert?.escalated], [[], undefined, undefined], JSON.stringify(alert));
  }
  const late = onEscalationDue(down({ escalateAt: at(16) }), STEPS, at(120), null);
  assert.equal(
    [late.reached, late.check.alert?.escalated, late.check.alert?.escalateAt],
    [
      [
        { level: 1, channels: ["second"] },
        { level: 2, channels: ["third"] },
      ],
      2,
      undefined,
    ],
  );
  const muted = onEscalationDue(down({ escalateAt: at(16) }), STEPS, at(16), at(40));
  assert.equal([muted.reached, muted.check.alert?.escalateAt], [[], at(40)], "muted: it waits for the mute's end");
  assert.equal(
    escalatedChannels({ ...down({ escalated: 2 }), channels: ["second"] }, STEPS),
    ["third"],
    "the check's own channels are not escalated to",
  );
});

test.run();
