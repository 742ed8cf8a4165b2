// Records of an outage's notices (reminders, a held down notification at a mute's end): the checks'
// changes logged as alerting-state patches and the entries as rows of those patches. A replay (after a
// kill -9) rebuilds exactly what was committed, and a shard restored from it sends the next reminders
// once each: none lost, none twice.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes, OutboxEntry } from "../../engine/changes.ts";
import type { Channel, Check, WebhookSpec } from "../../engine/model.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { decodeJournal, encodeJournal } from "../../persistence/journal-codec.ts";
import { openStore } from "../../persistence/store.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { ping, tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);
const NO_WEBHOOK: WebhookSpec = {
  method_down: "GET",
  url_down: "",
  body_down: "",
  headers_down: {},
  method_up: "GET",
  url_up: "",
  body_up: "",
  headers_up: {},
};
const CHANNELS: Channel[] = [
  { id: "email", projectId: "p", name: "email", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 },
  {
    id: "json",
    projectId: "p",
    name: "json",
    kind: "webhook",
    value: { kind: "webhook", spec: { ...NO_WEBHOOK, url_down: "http://h.example/" }, json: true },
    createdAt: T0,
  },
];

/** Without the flags a shard sets for the store (a decoded record has none). */
function plain(changes: Changes): Changes {
  const { statusOnly: _s, stateOnly: _t, alertOnly: _a, ...rest } = changes;
  return rest;
}

/**
 * A shard with three checks down since T0 + 1 s with hourly reminders: "both" notifies both channels
 * (the JSON webhook's entries carry the whole check), "email" the email only, "muted" is muted until
 * T0 + 30 min (its down notification is held until then). Returns the shard and each check as committed.
 */
function downShard(): { shard: Shard; committed: Map<string, Check> } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  for (const channel of CHANNELS) shard.addChannel(channel, T0);
  const spec = { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR };
  for (const [name, channels, mutedUntilAt] of [
    ["both", ["email", "json"], null],
    ["email", ["email"], null],
    ["muted", ["email"], T0 + 30 * MINUTE],
  ] as const) {
    const made = shard.createCheck("p", { ...spec, name, mutedUntilAt, channels: { refs: channels } }, [], T0);
    if (!made.ok) throw new Error("create failed");
  }
  for (const check of shard.listChecks("p", { tags: [] }))
    assert.ok(shard.ping(pingOf({ uuid: check.uuid }, T0 + 1_000, { signal: "fail" })).ok);
  const committed = new Map<string, Check>();
  for (const check of shard.takeChanges().checks) committed.set(check.uuid, check);
  return { shard, committed };
}

test("notices' records hold alerting-state patches and entry rows, and decode to exactly the changes", () => {
  const { shard, committed } = downShard();
  const lastState = (projectId: string, uuid: string) => {
    const c = committed.get(uuid);
    return c?.projectId === projectId ? c : undefined;
  };
  // T0 + 30 min: the muted check's held down notification; T0 + 1 h 1 s: the first reminders of the others
  const steps: Changes[] = [];
  shard.advance(T0 + 30 * MINUTE);
  steps.push(shard.takeChanges());
  shard.advance(T0 + 1_000 + HOUR);
  steps.push(shard.takeChanges());
  // a ping that finds the next reminder due first (state fields and a notice in one record)
  const email = shard.listChecks("p", { slug: undefined, tags: [] }).find((c) => c.name === "email");
  assert.ok(email !== undefined && shard.ping(pingOf({ uuid: email.uuid }, T0 + 1_000 + 2 * HOUR, { signal: "fail" })).ok);
  steps.push(shard.takeChanges());
  assert.equal(
    steps.map((s) => [s.alertOnly === true, s.stateOnly === true]),
    [
      [true, false],
      [true, false],
      [false, true],
    ],
  );
  assert.equal(
    steps.map((s) => s.outbox.map((e) => e.reminder ?? (e.id.endsWith("-m") ? "held" : "flip"))),
    [["held"], [1, 1, 1], [2]],
  );
  // as the host logs them: with the check's last ping (one with a body; the log decodes a body as a Buffer)
  const lastPing = ping({ n: 1, at: T0 + 1_000, kind: "fail" });
  steps[1] = {
    ...steps[1],
    outbox: steps[1].outbox.map((e, i) => ({ ...e, lastPing, lastPingBody: i === 0 ? Buffer.from([1, 2]) : null })),
  };
  for (const changes of steps) {
    const bytes = encodeJournal(changes);
    assert.equal(decodeJournal(bytes, lastState), plain(changes));
    // the email entries' share of a record, as rows and whole (an entry tried once is stored whole)
    const emails = changes.outbox.filter((e) => e.channel.id === "email"),
      without = encodeJournal({ ...changes, outbox: [] }).length;
    const rows = encodeJournal({ ...changes, outbox: emails }).length - without;
    const whole = encodeJournal({ ...changes, outbox: emails.map((e) => ({ ...e, attempts: 1 })) }).length - without;
    assert.ok(rows < whole / 2, `entries: ${rows} bytes as rows against ${whole} whole`);
    for (const check of changes.checks) committed.set(check.uuid, check);
  }
});

test("an entry a row can't rebuild exactly is stored whole; a row of an unknown check goes with its patch", () => {
  const { shard, committed } = downShard();
  shard.advance(T0 + 1_000 + HOUR);
  const changes = shard.takeChanges();
  const lastState = (_projectId: string, uuid: string) => committed.get(uuid);
  const tried: OutboxEntry = { ...changes.outbox[0], attempts: 1 };
  const renamed: OutboxEntry = { ...changes.outbox[1], check: { ...changes.outbox[1].check, name: "renamed" } };
  const altered: Changes = { ...changes, outbox: [tried, renamed, ...changes.outbox.slice(2)] };
  assert.equal(decodeJournal(encodeJournal(altered), lastState), plain(altered));
  const unknown = changes.outbox[changes.outbox.length - 1].check.uuid;
  const decoded = decodeJournal(encodeJournal(changes), (projectId, uuid) => (uuid === unknown ? undefined : lastState(projectId, uuid)));
  assert.equal(
    decoded.outbox,
    changes.outbox.filter((e) => e.check.uuid !== unknown),
  );
  assert.equal(
    decoded.checks,
    changes.checks.filter((c) => c.uuid !== unknown),
  );
});

test("reminders logged as patches replay after a kill -9 to the same state, and a restored shard sends the next ones once", async () => {
  const dir = tempDir();
  const { shard, committed } = downShard();
  const crashed = await openStore(dir.path, { durability: "commit" });
  try {
    await crashed.commit({
      projects: shard.projects(),
      channels: shard.channels("p"),
      checks: [...committed.values()],
      deletedChecks: [],
      pings: [],
      flips: [],
      outbox: [],
    });
    await crashed.checkpoint();
    const sent: OutboxEntry[] = [];
    for (const at of [T0 + 30 * MINUTE, T0 + 1_000 + HOUR]) {
      shard.advance(at);
      const changes = shard.takeChanges();
      assert.is(changes.alertOnly, true);
      sent.push(...changes.outbox);
      await crashed.commit(changes);
    }
    const queued = crashed.outboxAll().length;
    assert.is(queued, 0, "nothing checkpointed yet: a reopen finds the notices in the log only");
    // no checkpoint, no close: a second open (as after kill -9) replays the log
    const reopened = await openStore(dir.path, { durability: "commit" });
    try {
      assert.equal(
        reopened.loadChecks("p"),
        shard.listChecks("p", { tags: [] }).sort((a, b) => (a.uuid < b.uuid ? -1 : 1)),
        "alerting state as before",
      );
      const entries = reopened.outboxAll();
      assert.equal(
        entries,
        sent.sort((a, b) => (a.id < b.id ? -1 : 1)),
        "every notice's entry as committed",
      );
      assert.equal(
        entries.map((e) => [e.check.name, e.channel.id, e.reminder ?? "held"]),
        [
          ["muted", "email", "held"],
          ["both", "email", 1],
          ["both", "json", 1],
          ["email", "email", 1],
        ],
      );
      const restored = new Shard({ newId: sequentialIds(), now: T0 + 1_000 + HOUR });
      restored.load(reopened.loadProjects()[0], reopened.loadChannels("p"), reopened.loadChecks("p"));
      restored.advance(T0 + 1_000 + HOUR);
      assert.equal(restored.takeChanges().outbox, [], "no reminder again");
      restored.advance(T0 + 1_000 + 2 * HOUR);
      const next = restored.takeChanges().outbox;
      // the muted check's reminders count from its held notification (T0 + 30 min): its first is due at T0 + 1 h 30 min
      assert.equal(
        next.map((e) => [e.check.name, e.channel.id, e.reminder]),
        [
          ["muted", "email", 1],
          ["both", "email", 2],
          ["both", "json", 2],
          ["email", "email", 2],
        ],
        "each check's next reminder, once",
      );
    } finally {
      await reopened.close();
    }
  } finally {
    await crashed.close();
    dir.remove();
  }
});

test("escalation steps and failures while down go through the log whole and replay after a kill -9 as committed", async () => {
  const dir = tempDir();
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ ...CHANNELS[0], everyFailure: true }, T0);
  shard.addChannel(
    { id: "pager", projectId: "p", name: "pager", kind: "email", value: { kind: "email", address: "p@b.c" }, createdAt: T0 },
    T0,
  );
  const made = shard.createCheck(
    "p",
    {
      name: "job",
      timeoutMs: HOUR,
      graceMs: MINUTE,
      channels: { refs: ["email"] },
      escalation: [{ afterMs: 15 * MINUTE, channels: { refs: ["pager"] } }],
    },
    [],
    T0,
  );
  if (!made.ok) throw new Error("create failed");
  const uuid = made.value.check.uuid;
  const crashed = await openStore(dir.path, { durability: "commit" });
  try {
    await crashed.commit(shard.takeChanges());
    await crashed.checkpoint();
    const committed: Changes[] = [];
    shard.ping(pingOf({ uuid }, T0 + MINUTE, { signal: "fail" })); // down: its flip's notification
    committed.push(shard.takeChanges());
    shard.ping(pingOf({ uuid }, T0 + 2 * MINUTE, { signal: "fail" })); // again: the every_failure integration's
    committed.push(shard.takeChanges());
    shard.advance(T0 + 16 * MINUTE); // the escalation step
    committed.push(shard.takeChanges());
    assert.equal(
      committed.map((c) => c.outbox.map((e) => e.id.split("-").at(-1))),
      [["email"], ["f2"], ["e1"]],
    );
    assert.equal([committed[1].stateOnly, committed[2].alertOnly], [true, true], "the lean records, with the entries stored whole");
    for (const changes of committed) await crashed.commit(changes);
    const reopened = await openStore(dir.path, { durability: "commit" }); // as after kill -9: the log replayed
    try {
      const sent = committed.flatMap((c) => c.outbox).sort((a, b) => (a.id < b.id ? -1 : 1));
      // an entry queued without a last ping (a notice's) is read with the check's last ping, as a reminder is
      const lastPing = committed[1].pings[0].record;
      assert.equal(
        reopened.outboxAll(),
        sent.map((e) => (e.lastPing === null ? { ...e, lastPing } : e)),
        "every entry as committed, escalation and failure fields included",
      );
      assert.equal(
        reopened.outboxAll().map((e) => [e.escalation, e.failedAgain]),
        sent.map((e) => [e.escalation, e.failedAgain]),
      );
      assert.equal(reopened.loadChecks("p")[0].alert?.escalated, 1);
    } finally {
      await reopened.close();
    }
  } finally {
    await crashed.close();
    dir.remove();
  }
});

test.run();
