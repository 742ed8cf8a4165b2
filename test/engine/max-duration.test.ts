// max_duration on the Shard alone (CONTRACT "Alerting, second part"): an open run goes down when it has
// lasted max_duration, whatever the grace; runs are matched by rid; the down notification names the run's
// start; the what-if simulation takes it. Instants are written out by hand, in minutes after T0.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { CheckSpec, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { statusAt } from "../../engine/status.ts";
import { simulate } from "../../engine/simulate.ts";
import { replay } from "../../engine/replay.ts";
import type { ReplayEvent } from "../../engine/replay.ts";
import { render } from "../../notify/render.ts";
import type { EmailMessage } from "../../notify/delivery.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const min = (at: Millis) => (at - T0) / MINUTE;
const RID_A = "0a0a0a0a-0000-4000-8000-000000000001";
const RID_B = "0b0b0b0b-0000-4000-8000-000000000002";

type Event = [minute: number, signal: PingSignal, rid?: string] | [minute: number, "advance"];

/** A shard with one check (timeout 1 day, grace 1 hour unless `spec` says otherwise, one email channel) created at T0. */
function setUp(spec: CheckSpec) {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], T0);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

/** Runs the events; returns the flips ("down@190 duration") and the outbox entries, in order. */
function run(spec: CheckSpec, events: readonly Event[]): { flips: string[]; outbox: OutboxEntry[]; shard: Shard; uuid: string } {
  const { shard, uuid } = setUp(spec);
  const flips: string[] = [],
    outbox: OutboxEntry[] = [];
  for (const [minute, what, rid] of events) {
    const at = T0 + minute * MINUTE;
    if (what === "advance") shard.advance(at);
    else assert.ok(shard.ping(pingOf({ uuid }, at, { signal: what, rid: rid ?? null })).ok);
    const changes = shard.takeChanges();
    flips.push(...changes.flips.map((f) => `${f.to}@${min(f.at)}${f.reason === "" ? "" : ` ${f.reason}`}`));
    outbox.push(...changes.outbox);
  }
  return { flips, outbox, shard, uuid };
}

const MAX_3H = { maxDurationMs: 3 * HOUR };

test("off (0): the reference's rule, a run is bounded by the grace", () => {
  assert.equal(
    run({ maxDurationMs: 0 }, [
      [1, "success"],
      [10, "start"],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1", "down@70 timeout"],
  );
});

test("on: a run longer than the grace stays up until max_duration has passed since its start, then goes down", () => {
  const { flips, shard, uuid } = run(MAX_3H, [
    [1, "success"],
    [10, "start"],
    [100, "advance"],
  ]);
  assert.equal(flips, ["up@1"]);
  const check = shard.getCheck("p", uuid);
  assert.ok(check.ok);
  if (check.ok) assert.is(statusAt(check.value, T0 + 100 * MINUTE), "up", "a running check within max_duration is up, not grace");
  assert.equal(
    run(MAX_3H, [
      [1, "success"],
      [10, "start"],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1", "down@190 duration"],
  );
});

test("edge: one millisecond before start + max_duration nothing happens; at that instant the check goes down", () => {
  const { shard, uuid } = setUp(MAX_3H);
  shard.ping(pingOf({ uuid }, T0 + 10 * MINUTE, { signal: "start" }));
  shard.advance(T0 + 190 * MINUTE - 1);
  assert.equal(shard.takeChanges().flips, []);
  shard.advance(T0 + 190 * MINUTE);
  assert.equal(
    shard.takeChanges().flips.map((f) => [f.to, min(f.at), f.reason]),
    [["down", 190, "duration"]],
  );
});

test("a max_duration shorter than the grace bounds the run too (independent of grace)", () => {
  assert.equal(
    run({ maxDurationMs: 30 * MINUTE }, [
      [1, "success"],
      [10, "start"],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1", "down@40 duration"],
  );
});

test("a run that outlives the check's period is judged by max_duration alone; the period rule returns after it ends", () => {
  // timeout 1 h, grace 10 min: without a run, down 70 min after the last ping
  const spec = { timeoutMs: HOUR, graceMs: 10 * MINUTE, maxDurationMs: 3 * HOUR };
  assert.equal(
    run(spec, [
      [0, "success"],
      [50, "start"],
      [229, "advance"],
    ]).flips,
    ["up@0"],
  );
  assert.equal(
    run(spec, [
      [0, "success"],
      [50, "start"],
      [230, "advance"],
    ]).flips,
    ["up@0", "down@230 duration"],
  );
  assert.equal(
    run(spec, [
      [0, "success"],
      [50, "start"],
      [200, "success"],
      [269, "advance"],
    ]).flips,
    ["up@0"],
  );
  assert.equal(
    run(spec, [
      [0, "success"],
      [50, "start"],
      [200, "success"],
      [400, "advance"],
    ]).flips,
    ["up@0", "down@270 timeout"],
  );
});

test("rid: the run's own success ends it; another run's success leaves it open and its limit stands", () => {
  assert.equal(
    run(MAX_3H, [
      [1, "success"],
      [10, "start", RID_A],
      [100, "success", RID_A],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1"],
  );
  assert.equal(
    run(MAX_3H, [
      [1, "success"],
      [10, "start", RID_A],
      [100, "success", RID_B],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1", "down@190 duration"],
  );
  // a failure ends any run: down for the failure, not again for the run
  assert.equal(
    run(MAX_3H, [
      [1, "success"],
      [10, "start", RID_A],
      [100, "fail", RID_B],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1", "down@100 fail"],
  );
});

test("a new start restarts the limit; a start on a never-pinged check is limited too", () => {
  assert.equal(
    run(MAX_3H, [
      [1, "success"],
      [10, "start"],
      [120, "start"],
      [10 * 60, "advance"],
    ]).flips,
    ["up@1", "down@300 duration"],
  );
  assert.equal(
    run({ maxDurationMs: HOUR }, [
      [5, "start"],
      [10 * 60, "advance"],
    ]).flips,
    ["down@65 duration"],
  );
});

test("the down notification says the run is taking too long and when it started; a missed ping's does not", () => {
  const { outbox } = run(MAX_3H, [
    [1, "success"],
    [10, "start"],
    [10 * 60, "advance"],
  ]);
  assert.is(outbox.length, 1);
  assert.is(outbox[0].runStartedAt, T0 + 10 * MINUTE);
  assert.is("downtime" in outbox[0], false, "no downtime, not even undefined");
  const mail = render(outbox[0], { siteRoot: "http://hcd.example", siteName: "hcd" }) as EmailMessage;
  assert.match(mail.text, "the run is taking too long: started at 2026-06-01T00:10:00+00:00");
  const missed = run(MAX_3H, [
    [1, "success"],
    [3 * 24 * 60, "advance"],
  ]).outbox;
  assert.is(missed[0].runStartedAt, undefined);
  assert.not.match((render(missed[0], { siteRoot: "http://hcd.example", siteName: "hcd" }) as EmailMessage).text, "taking too long");
});

test("simulate takes max_duration: the same log gives the grace's flips without it and max_duration's with it", () => {
  const { shard, uuid } = setUp({});
  const found = shard.getCheck("p", uuid);
  if (!found.ok) throw new Error("no check");
  const project = shard.projects()[0];
  const logged = (minute: number, kind: "start" | "success") => ({
    at: T0 + minute * MINUTE,
    kind,
    scheme: "http",
    method: "GET",
    rid: null,
    exitStatus: null,
    body: null,
  });
  const pings = [logged(1, "success"), logged(10, "start"), logged(250, "success")];
  const base = { check: found.value, project, pings, pauses: [], sinceAt: T0, untilAt: T0 + 300 * MINUTE };
  const flipsOf = (maxDurationMs: number) => {
    const result = simulate({ ...base, settings: { maxDurationMs } });
    if (!result.ok) throw new Error("simulation failed");
    return result.value.flips.map((f) => `${f.up ? "up" : "down"}@${min(f.at)}`);
  };
  assert.equal(flipsOf(0), ["up@1", "down@70", "up@250"]);
  assert.equal(flipsOf(3 * HOUR), ["up@1", "down@190", "up@250"]);
  assert.equal(flipsOf(5 * HOUR), ["up@1"]);
});

test("replay: a scenario's check with max_duration goes down for its run, and the notification carries the run's start", () => {
  const events: ReplayEvent[] = [];
  const ping = (signal: PingSignal) => ({ signal, exitStatus: null, rid: null, method: "GET", body: null });
  replay(
    {
      startAt: T0,
      project: { name: "p", checkLimit: 5, pingLogLimit: 10, pingBodyLimit: 100 },
      commands: [
        { at: T0, command: "channel", channel: { kind: "email", name: "ops", value: { kind: "email", address: "ops@example.com" } } },
        {
          at: T0,
          command: "create",
          check: "job",
          spec: { timeoutMs: DAY, graceMs: HOUR, maxDurationMs: 2 * HOUR, channels: { all: true } },
        },
        { at: T0 + MINUTE, command: "ping", check: "job", ping: ping("success") },
        { at: T0 + 10 * MINUTE, command: "ping", check: "job", ping: ping("start") },
        { at: T0 + 10 * HOUR, command: "advance" },
      ],
    },
    (event) => events.push(event),
  );
  const seen = events.map((e) =>
    e.event === "flip"
      ? `flip ${e.flip.to}@${min(e.flip.at)} ${e.flip.reason}`
      : e.event === "notification"
        ? `notification started@${min(e.entry.runStartedAt ?? 0)}`
        : "refused",
  );
  assert.equal(seen, ["flip up@1 ", "flip down@130 duration", "notification started@10"]);
});

test.run();
