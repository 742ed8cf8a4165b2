// A replay's own rules, apart from the shard's: checks named by labels (an unknown label or a second
// creation refused), every refusal reported with the command's index, the project it makes, and the order
// of what it reports (a flip, then its notifications; an outage's notices at their own instants).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { replay, replayId } from "../../engine/replay.ts";
import type { ReplayCommand, ReplayEvent, ReplayPing, ReplayScenario } from "../../engine/replay.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";

const T0 = Date.UTC(2026, 5, 1);
const PING: ReplayPing = { signal: "success", exitStatus: null, rid: null, method: "GET", body: null };
const scenario = (commands: ReplayCommand[], checkLimit = 5): ReplayScenario => ({
  startAt: T0,
  project: { name: "replayed", checkLimit, pingLogLimit: 10, pingBodyLimit: 100 },
  commands,
});
/** Each event written out: "flip a new>down@61", "notify a down@61 ops", "refused 3 not_found check x". */
function run(commands: ReplayCommand[], checkLimit?: number): string[] {
  const events: string[] = [];
  const at = (t: number) => (t - T0) / MINUTE;
  replay(scenario(commands, checkLimit), (event: ReplayEvent) => {
    if (event.event === "flip") events.push(`flip ${event.check} ${event.flip.from}>${event.flip.to}@${at(event.flip.at)}`);
    else if (event.event === "notification")
      events.push(
        `notify ${event.check} ${event.entry.reminder === undefined ? event.entry.flip.to : `reminder ${event.entry.reminder}`}@${at(event.entry.flip.at)} ${event.entry.channel.name}`,
      );
    else if (event.event === "note") events.push(`note ${event.check} ${event.ping.note}@${at(event.ping.at)}`);
    else events.push(`refused ${event.index} ${JSON.stringify(event.failure)}`);
  });
  return events;
}
const m = (minutes: number) => T0 + minutes * MINUTE;

test("a label no check was created with is refused for every command that names one; a second creation too", () => {
  const events = run([
    { at: m(1), command: "ping", check: "x", ping: PING },
    { at: m(2), command: "update", check: "x", spec: { name: "n" } },
    { at: m(3), command: "pause", check: "x" },
    { at: m(4), command: "resume", check: "x" },
    { at: m(5), command: "acknowledge", check: "x" },
    { at: m(6), command: "create", check: "a", spec: { timeoutMs: HOUR, graceMs: MINUTE } },
    { at: m(7), command: "create", check: "a", spec: { timeoutMs: HOUR, graceMs: MINUTE } },
  ]);
  const notFound = JSON.stringify({ code: "not_found", what: "check x" });
  assert.equal(
    events,
    [0, 1, 2, 3, 4]
      .map((i) => `refused ${i} ${notFound}`)
      .concat(`refused 6 ${JSON.stringify({ code: "invalid", field: "check", reason: "a exists already" })}`),
  );
});

test("the shard's refusals are reported with their command's index; accepted commands report nothing", () => {
  const events = run(
    [
      { at: m(1), command: "create", check: "a", spec: { timeoutMs: HOUR, graceMs: MINUTE } },
      { at: m(2), command: "create", check: "b", spec: { timeoutMs: HOUR, graceMs: MINUTE } },
      { at: m(3), command: "create", check: "c", spec: { timeoutMs: HOUR, graceMs: MINUTE } },
      { at: m(4), command: "resume", check: "a" },
      { at: m(5), command: "acknowledge", check: "a" },
      { at: m(6), command: "update", check: "a", spec: { dependsOn: [replayId(2)] } },
      { at: m(7), command: "pause", check: "a" },
      { at: m(8), command: "resume", check: "a" },
      { at: m(9), command: "ping", check: "b", ping: PING },
    ],
    2,
  );
  assert.equal(events, [
    `refused 2 ${JSON.stringify({ code: "check_limit" })}`,
    `refused 3 ${JSON.stringify({ code: "not_paused" })}`,
    `refused 4 ${JSON.stringify({ code: "not_down" })}`,
    `refused 5 ${JSON.stringify({ code: "invalid", field: "depends_on", reason: "names the check itself" })}`,
    "flip a new>paused@7",
    "flip a paused>new@8",
    "flip b new>up@9",
  ]);
});

test("the project and ids a replay makes: the project is the first id, its keys named after it", () => {
  const snapshot = replay(scenario([{ at: m(1), command: "create", check: "a", spec: {} }]), () => {});
  const project = snapshot.projects[0];
  assert.equal(
    [project.id, project.name, project.apiKey, project.apiKeyReadonly, project.pingKey, project.badgeKey],
    [replayId(1), "replayed", `rw-${replayId(1)}`, `ro-${replayId(1)}`, `pk-${replayId(1)}`, `bk-${replayId(1)}`],
  );
  assert.is(replayId(255), "00000000-0000-4000-8000-0000000000ff");
  assert.equal(
    snapshot.checks.map((c) => c.uuid),
    [replayId(2)],
  );
});

test("a flip's notifications follow it; an outage's reminders come at their own instants, in time order with other flips", () => {
  const events = run([
    { at: m(0), command: "channel", channel: { kind: "email", name: "ops", value: { kind: "email", address: "ops@example.com" } } },
    {
      at: m(0),
      command: "create",
      check: "a",
      spec: { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: 30 * MINUTE, channels: { all: true } },
    },
    { at: m(0), command: "create", check: "b", spec: { timeoutMs: 2 * HOUR, graceMs: MINUTE, channels: { all: true } } },
    { at: m(1), command: "ping", check: "a", ping: { ...PING, signal: "fail" } },
    { at: m(1), command: "ping", check: "b", ping: PING },
    { at: m(150), command: "advance" },
  ]);
  assert.equal(events, [
    "flip a new>down@1",
    "notify a down@1 ops",
    "flip b new>up@1",
    "notify a reminder 1@31 ops",
    "notify a reminder 2@61 ops",
    "notify a reminder 3@91 ops",
    "notify a reminder 4@121 ops",
    "flip b up>down@122",
    "notify b down@122 ops",
  ]);
});

test.run();
