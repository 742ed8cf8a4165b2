// every_failure on the Shard alone (CONTRACT "Alerting, third part"): an integration with the option hears
// of every failure that finds its check down already (a failure signal, a run too fast or too often, an
// overlap under alert_on_overlap), not only of the change to down; one without it hears of the change
// only. A mute or a dependency that is down holds them as it holds the rest. Instants in minutes after T0.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, CheckSpec, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const at = (minute: number): Millis => T0 + minute * MINUTE;

const email = (id: string, everyFailure: boolean): Channel => ({
  id,
  projectId: "p",
  name: id,
  kind: "email",
  value: { kind: "email", address: `${id}@example.com` },
  createdAt: T0,
  ...(everyFailure ? { everyFailure: true } : {}),
});

function setUp(spec: CheckSpec = {}, shard = new Shard({ newId: sequentialIds(), now: T0 })) {
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel(email("every", true), T0);
  shard.addChannel(email("changes", false), T0);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], T0);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

/** Pings at the given minutes; returns "<minute> <channel> <status>[ again <ping n> <reason>]" per entry queued. */
function run(spec: CheckSpec, pings: readonly [number, PingSignal][], shard?: Shard): string[] {
  const set = setUp(spec, shard);
  const out: OutboxEntry[] = [];
  for (const [minute, signal] of pings) {
    assert.ok(set.shard.ping(pingOf({ uuid: set.uuid }, at(minute), { signal })).ok);
    out.push(...set.shard.takeChanges().outbox);
  }
  return out.map(
    (e) =>
      `${(e.flip.at - T0) / MINUTE} ${e.channel.id} ${e.flip.to}${e.failedAgain === undefined ? "" : ` again ${e.failedAgain} ${e.flip.reason}`}`,
  );
}

test("a failure that finds the check down reaches only the integrations with every_failure", () => {
  assert.equal(
    run({}, [
      [1, "fail"],
      [2, "fail"],
      [3, "fail"],
      [4, "success"],
    ]),
    ["1 every down", "1 changes down", "2 every down again 2 fail", "3 every down again 3 fail", "4 every up", "4 changes up"],
  );
});

test("a failure entry has an id of its own (its ping's number) and the outage's start", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  shard.takeChanges();
  shard.ping(pingOf({ uuid }, at(2), { signal: "fail" }));
  const [entry] = shard.takeChanges().outbox;
  assert.ok(entry.id.endsWith("-every-f2"), entry.id);
  assert.is(entry.downSinceAt, at(1));
  assert.is(entry.lastPing?.n, 2, "the failing ping is the entry's last ping (its body is shown)");
});

test("failures below failure_threshold do not notify: the threshold decides when an outage begins", () => {
  assert.equal(
    run({ failureThreshold: 3 }, [
      [1, "fail"],
      [2, "fail"],
      [3, "fail"],
      [4, "fail"],
    ]),
    ["3 every down", "3 changes down", "4 every down again 4 fail"],
  );
});

test("a run rule's failure while down names the rule and its facts", () => {
  const { shard, uuid } = setUp({ minDurationMs: 60 * SECOND });
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  shard.ping(pingOf({ uuid }, at(2), { signal: "start" }));
  shard.ping(pingOf({ uuid }, at(2) + 5 * SECOND, { signal: "success" }));
  const entries = shard.takeChanges().outbox.filter((e) => e.failedAgain !== undefined);
  assert.equal(
    entries.map((e) => [e.channel.id, e.flip.reason, e.run]),
    [["every", "too_fast", { rule: "too_fast", durationMs: 5 * SECOND, minDurationMs: 60 * SECOND }]],
  );
});

test("a mute holds the failures; so does a dependency that is down", () => {
  assert.equal(
    run({ mutedUntilAt: at(60) }, [
      [1, "fail"],
      [2, "fail"],
    ]),
    [],
  );
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  const parent = setUp({}, shard);
  const child = shard.createCheck("p", { timeoutMs: DAY, channels: { all: true }, dependsOn: [parent.uuid] }, [], T0);
  if (!child.ok) throw new Error("create failed");
  shard.ping(pingOf({ uuid: parent.uuid }, at(0), { signal: "fail" }));
  shard.takeChanges();
  shard.ping(pingOf({ uuid: child.value.check.uuid }, at(1), { signal: "fail" }));
  shard.ping(pingOf({ uuid: child.value.check.uuid }, at(2), { signal: "fail" }));
  assert.equal(shard.takeChanges().outbox, []);
});

test("an acknowledged outage still hears of every failure (acknowledging stops reminders and escalation only)", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, at(1), { signal: "fail" }));
  shard.acknowledgeCheck("p", uuid, "api", at(2));
  shard.takeChanges();
  shard.ping(pingOf({ uuid }, at(3), { signal: "fail" }));
  assert.equal(
    shard.takeChanges().outbox.map((e) => e.channel.id),
    ["every"],
  );
});

test.run();
