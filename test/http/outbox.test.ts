// Delivery state in the admin API: GET /admin/v1/outbox and the per-channel counts of
// GET /admin/v1/projects/<id>/channels, with a webhook at a closed local port so every delivery fails.
// One shard: with several, every shard's deliverer works the one shared outbox table and sends an entry
// once per shard, and a send still running when the pool closes writes to a closed store (both reported).
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { OutboxEntry } from "../../engine/changes.ts";
import { HOUR, SECOND } from "../../engine/model.ts";
import { GAVE_UP_AT } from "../../engine/changes.ts";
import { presentChannelStates, presentOutbox } from "../../http/present.ts";
import { channel, check, closedPort, flip } from "../helpers.ts";
import type { Api } from "./harness.ts";
import { T0, withApi as withApiOnShards } from "./harness.ts";

type Json = Record<string, unknown>;
const withApi = (body: (api: Api) => Promise<void>) => withApiOnShards(body, { shards: 1 });
type Entry = {
  id: string;
  project: string;
  channel: string;
  check: string;
  flip: Json;
  attempts: number;
  next_attempt: string | null;
  last_error: string | null;
  given_up: boolean;
};

async function outbox(api: Api): Promise<Entry[]> {
  const res = await api.admin("GET", "/admin/v1/outbox");
  assert.is(res.status, 200, res.text);
  return (res.json as { outbox: Entry[] }).outbox;
}

/** Polls the outbox until `ready` holds: delivery runs beside the commands, in real time. */
async function outboxWhen(api: Api, ready: (entries: Entry[]) => boolean, what: string): Promise<Entry[]> {
  const started = Date.now();
  for (;;) {
    const entries = await outbox(api);
    if (ready(entries)) return entries;
    if (Date.now() - started > 5_000) throw new Error(`waited for ${what}; outbox: ${JSON.stringify(entries)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function addChannel(api: Api, kind: string, name: string, value: unknown): Promise<string> {
  const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, name, value });
  assert.is(res.status, 201, res.text);
  return (res.json as { id: string }).id;
}

async function channelStates(api: Api): Promise<Json[]> {
  const res = await api.admin("GET", `/admin/v1/projects/${api.project.id}/channels`);
  assert.is(res.status, 200, res.text);
  return (res.json as { channels: Json[] }).channels;
}

test("the outbox and the channel list are empty before any flip", () =>
  withApi(async (api) => {
    const id = await addChannel(api, "email", "ops", "ops@example.com");
    assert.equal(await outbox(api), []);
    assert.equal(await channelStates(api), [
      { id, name: "ops", kind: "email", pending: 0, failed: 0, last_error: null, needs_settings: false, every_failure: false },
    ]);
  }));

test("a failed delivery stays in the outbox with its attempt, retry time and error; the channel counts it as pending", () =>
  withApi(async (api) => {
    const port = await closedPort();
    const hook = await addChannel(api, "webhook", "hook", `http://127.0.0.1:${port}/down`);
    const quiet = await addChannel(api, "webhook", "quiet", { url_down: "", url_up: `http://127.0.0.1:${port}/up` });
    const check = await api.create({ name: "nightly", channels: "hook" }); // quiet is not assigned
    await api.ping(check.uuid as string, { signal: "fail" }); // new → down: one notification
    const [entry] = await outboxWhen(api, (entries) => entries.length === 1 && entries[0].attempts === 1, "the first attempt");
    assert.equal(
      { ...entry, id: "", last_error: "" },
      {
        id: "",
        project: api.project.id,
        channel: hook,
        check: check.uuid as string,
        flip: { timestamp: "2026-01-15T12:00:00+00:00", up: 0 },
        attempts: 1,
        next_attempt: new Date(T0 + 10 * SECOND).toISOString(), // first backoff: 10 s
        last_error: "",
        given_up: false,
        reminder: 0,
      },
    );
    assert.type(entry.id, "string");
    assert.ok((entry.last_error ?? "").length > 0, "the error is kept");
    assert.equal(await channelStates(api), [
      {
        id: hook,
        name: "hook",
        kind: "webhook",
        pending: 1,
        failed: 0,
        last_error: entry.last_error,
        needs_settings: false,
        every_failure: false,
      },
      { id: quiet, name: "quiet", kind: "webhook", pending: 0, failed: 0, last_error: null, needs_settings: false, every_failure: false },
    ]);
  }));

test("after the last attempt the entry is given up: next_attempt null, counted as failed, error kept", () =>
  withApi(async (api) => {
    const port = await closedPort();
    const hook = await addChannel(api, "webhook", "hook", `http://127.0.0.1:${port}/`);
    const check = await api.create({ name: "nightly", channels: "*" });
    await api.ping(check.uuid as string, { signal: "fail" });
    for (let attempts = 1; attempts < 8; attempts++) {
      const [entry] = await outboxWhen(api, (entries) => (entries[0]?.attempts ?? 0) >= attempts, `attempt ${attempts}`);
      if (entry.given_up) break;
      assert.is((await api.admin("POST", "/admin/v1/clock", { advance: HOUR / SECOND })).status, 200); // past any backoff
    }
    const [entry] = await outboxWhen(api, (entries) => entries[0]?.given_up === true, "giving up");
    assert.equal([entry.attempts, entry.next_attempt, entry.given_up], [8, null, true]);
    assert.ok((entry.last_error ?? "").length > 0);
    assert.equal(await channelStates(api), [
      {
        id: hook,
        name: "hook",
        kind: "webhook",
        pending: 0,
        failed: 1,
        last_error: entry.last_error,
        needs_settings: false,
        every_failure: false,
      },
    ]);
  }));

test("the outbox lists every project's entries in flip order; a channel list shows only its own project", () =>
  withApi(async (api) => {
    const port = await closedPort();
    const mine = await addChannel(api, "webhook", "hook", `http://127.0.0.1:${port}/`);
    const other = await api.newProject({ name: "other" });
    const theirs = await api.admin("POST", `/admin/v1/projects/${other.id}/channels`, {
      kind: "webhook",
      value: `http://127.0.0.1:${port}/`,
    });
    const theirCheck = await api.call("POST", "/api/v3/checks/", { key: other.apiKey, body: { channels: "*" } });
    const myCheck = await api.create({ channels: "*" });
    await api.ping(myCheck.uuid as string, { signal: "fail" });
    api.clock.advance(SECOND);
    await api.ping((theirCheck.json as Json).uuid as string, { signal: "fail", at: api.clock.now() });
    const entries = await outboxWhen(api, (list) => list.length === 2 && list.every((e) => e.attempts === 1), "both attempts");
    assert.equal(
      entries.map((e) => [e.project, e.channel, e.check]),
      [
        [api.project.id, mine, myCheck.uuid],
        [other.id, (theirs.json as Json).id, (theirCheck.json as Json).uuid],
      ],
    );
    assert.equal(
      (await channelStates(api)).map((c) => [c.id, c.pending]),
      [[mine, 1]],
    );
  }));

test("outbox and channel states need the admin token; an unknown project is 404", () =>
  withApi(async (api) => {
    for (const path of ["/admin/v1/outbox", `/admin/v1/projects/${api.project.id}/channels`]) {
      for (const authorization of [undefined, "Bearer wrong", `Bearer ${api.project.apiKey}`]) {
        const res = await api.call("GET", path, { key: null, headers: authorization === undefined ? {} : { authorization } });
        assert.is(res.status, 401, `${path} ${authorization}`);
        assert.type((res.json as Json).error, "string");
      }
    }
    const unknown = await api.admin("GET", "/admin/v1/projects/00000000-0000-4000-8000-000000000000/channels");
    assert.is(unknown.status, 404);
    assert.is((await api.admin("POST", "/admin/v1/outbox", {})).status, 405);
  }));

function entry(overrides: Partial<OutboxEntry>): OutboxEntry {
  return {
    id: "1",
    projectId: "p",
    check: check(),
    flip: flip({ at: T0, to: "down" }),
    channel: channel({ id: "c" }),
    lastPing: null,
    lastPingBody: null,
    projectName: "",
    downSinceAt: null,
    attempts: 0,
    nextAttemptAt: T0,
    lastError: null,
    ...overrides,
  };
}

test("presenting: entries listed once each in id order; last_error is the newest failed notification's", () => {
  const older = entry({ id: "1", attempts: 8, nextAttemptAt: GAVE_UP_AT, lastError: "older" });
  const newer = entry({ id: "2", attempts: 1, nextAttemptAt: T0 + HOUR, lastError: "newer" });
  const waiting = entry({ id: "3" }); // held back behind the others, not tried yet
  const listed = [waiting, newer, older, newer]; // a pool may list an entry once per shard
  assert.equal(
    presentOutbox(listed).outbox.map((e) => [e.id, e.given_up, e.next_attempt, e.last_error]),
    [
      ["1", true, null, "older"],
      ["2", false, new Date(T0 + HOUR).toISOString(), "newer"],
      ["3", false, new Date(T0).toISOString(), null],
    ],
  );
  const states = presentChannelStates([channel({ id: "c", name: "n", kind: "webhook" }), channel({ id: "d", kind: "email" })], listed);
  assert.equal(
    states.channels.map((c) => [c.id, c.pending, c.failed, c.last_error]),
    [
      ["c", 2, 1, "newer"],
      ["d", 0, 0, null],
    ],
  );
});

test.run();
