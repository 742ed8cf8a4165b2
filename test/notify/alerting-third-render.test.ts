// What the third part's notifications say (CONTRACT "Alerting, third part"), from entries a real Shard
// queued: a run that finished too fast names its duration and the minimum ("finished in 3 s, expected at
// least 60 s"), a run too often and an overlap say what was seen, an escalation step and a failure while
// down read as "still DOWN" with a line of their own, in the email and in a chat kind.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, CheckSpec } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";
import { render } from "../../notify/render.ts";
import type { EmailMessage } from "../../notify/delivery.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const OPTS = { siteRoot: "http://hcd.example", siteName: "hcd" };

function shardWith(spec: CheckSpec, channels: readonly Channel[]) {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  for (const channel of channels) shard.addChannel(channel, T0);
  const made = shard.createCheck("p", { name: "backup", timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], T0);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

const email = (id: string, everyFailure = false): Channel => ({
  id,
  projectId: "p",
  name: id,
  kind: "email",
  value: { kind: "email", address: `${id}@example.com` },
  createdAt: T0,
  ...(everyFailure ? { everyFailure } : {}),
});
const mail = (entry: OutboxEntry) => render(entry, OPTS) as EmailMessage;

test("a run that finished too fast: the reason names its duration and the minimum", () => {
  const { shard, uuid } = shardWith({ minDurationMs: 60 * SECOND }, [email("ops")]);
  shard.ping(pingOf({ uuid }, T0, { signal: "start" }));
  shard.ping(pingOf({ uuid }, T0 + 3 * SECOND, { signal: "success" }));
  const message = mail(shard.takeChanges().outbox[0]);
  assert.match(message.text, "Reason: the run finished too fast: finished in 3 s, expected at least 60 s.");
  assert.match(message.html, "is DOWN (the run finished too fast: finished in 3 s, expected at least 60 s)");
});

test("a run too often and an overlap say what was seen", () => {
  const often = shardWith({ maxRunsPerPeriod: 1 }, [email("ops")]);
  often.shard.ping(pingOf({ uuid: often.uuid }, T0, {}));
  often.shard.ping(pingOf({ uuid: often.uuid }, T0 + MINUTE, {}));
  assert.match(
    mail(often.shard.takeChanges().outbox[0]).text,
    "Reason: it ran too often: 2 successful runs in one period, at most 1 expected.",
  );
  const overlap = shardWith({ alertOnOverlap: true }, [email("ops")]);
  overlap.shard.ping(pingOf({ uuid: overlap.uuid }, T0, { signal: "start" }));
  overlap.shard.ping(pingOf({ uuid: overlap.uuid }, T0 + MINUTE, { signal: "start" }));
  assert.match(
    mail(overlap.shard.takeChanges().outbox[0]).text,
    "Reason: runs overlapped: a run started at 2026-06-01T00:00:00+00:00 was still going.",
  );
});

test("an escalation step: 'Escalated' in the subject, still DOWN, down since and not acknowledged", () => {
  const { shard, uuid } = shardWith({ channels: { refs: ["ops"] }, escalation: [{ afterMs: 15 * MINUTE, channels: { refs: ["boss"] } }] }, [
    email("ops"),
    email("boss"),
  ]);
  shard.ping(pingOf({ uuid }, T0, { signal: "fail" }));
  shard.advance(T0 + 15 * MINUTE);
  const entries = shard.takeChanges().outbox;
  const step = entries.find((e) => e.escalation === 1);
  if (step === undefined) throw new Error("no escalation entry");
  const message = mail(step);
  assert.is(message.to, "boss@example.com");
  assert.is(message.subject, "Escalated: DOWN | backup");
  assert.match(message.text, 'The check "backup" is still down.');
  assert.match(message.text, "Escalated (step 1): down since 2026-06-01T00:00:00+00:00 (15 minutes, 0 seconds), and not acknowledged.");
  const slack = render(
    { ...step, channel: { ...step.channel, kind: "slack", value: { kind: "slack", url: "https://hooks.example/x" } } },
    OPTS,
  );
  assert.match(JSON.stringify(slack), "is still DOWN");
  assert.match(JSON.stringify(slack), "Escalated (step 1)");
});

test("a failure while down (every_failure): 'Failed again' with its reason and the outage's start", () => {
  const { shard, uuid } = shardWith({}, [email("ops", true)]);
  shard.ping(pingOf({ uuid }, T0, { signal: "fail" }));
  shard.ping(pingOf({ uuid }, T0 + 5 * MINUTE, { signal: "fail" }));
  const entries = shard.takeChanges().outbox;
  const again = mail(entries[1]);
  assert.is(again.subject, "Failed again: DOWN | backup");
  assert.match(again.text, "Failed again: received a failure signal; still down since 2026-06-01T00:00:00+00:00 (5 minutes, 0 seconds).");
  assert.is(mail(entries[0]).subject, "DOWN | backup", "the change to down reads as before");
});

test.run();
