// Notifications end to end: shard flips → durable outbox in the same commit → deliverer → real
// receivers (HTTP and SMTP), on a virtual clock and a real LMDB store.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Pool, PingCommand } from "../../host/pool-api.ts";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Captured } from "../notify/receivers.ts";
import { httpReceiver, smtpReceiver } from "../notify/receivers.ts";
import { tempDir, pingThrough } from "../helpers.ts";

const T0 = Date.UTC(2026, 4, 1, 12);

function options(dataDir: string, smtpUrl: string | null = null): PoolOptions {
  return {
    dataDir,
    shards: 1,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://hcd.test", allowPrivateIps: true, smtpUrl, fromAddress: "hcd@hcd.test" },
  };
}

function ping(uuid: string, at: number, signal: PingCommand["signal"] = "success"): PingCommand {
  return {
    target: { uuid },
    signal,
    exitStatus: null,
    method: "POST",
    scheme: "http",
    remoteAddr: "10.1.2.3",
    ua: "curl/8",
    rid: null,
    body: new TextEncoder().encode("backup log line"),
    at,
  };
}

/** Resolves once `count` items are there; fails after `ms` of real time. */
async function until<T>(list: T[], count: number, ms = 5_000): Promise<T[]> {
  const started = Date.now();
  while (list.length < count) {
    if (Date.now() - started > ms) throw new Error(`waited for ${count}, have ${list.length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return list;
}

/** Resolves with the outbox once `ready` holds for it (a positive marker, never a fixed sleep); fails after `ms`. */
async function outboxWhen(pool: Pool, ready: (entries: Awaited<ReturnType<Pool["listOutbox"]>>) => boolean, ms = 5_000) {
  const started = Date.now();
  for (;;) {
    const entries = await pool.listOutbox();
    if (ready(entries)) return entries;
    if (Date.now() - started > ms) throw new Error(`outbox never got there: ${JSON.stringify(entries.map((e) => [e.id, e.attempts]))}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function setUp(pool: Pool, webhook: string) {
  const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 1000 }, T0);
  const channel = await pool.addChannel(
    project.id,
    {
      kind: "webhook",
      name: "hook",
      value: {
        kind: "webhook",
        json: false,
        spec: {
          method_down: "POST",
          url_down: `${webhook}/down?name=$NAME`,
          body_down: "$NAME is $STATUS: $BODY",
          headers_down: { "X-Check": "$CODE" },
          method_up: "GET",
          url_up: `${webhook}/up/$NAME`,
          body_up: "",
          headers_up: {},
        },
      },
    },
    T0,
  );
  assert.ok(channel.ok);
  const made = await pool.createCheck(project.id, { name: "db backup", timeoutMs: DAY, graceMs: HOUR, channels: { all: true } }, [], T0);
  if (!made.ok) throw new Error("create failed");
  return { project, uuid: made.value.check.uuid };
}

test("a check going down and up on the virtual clock makes exactly one request per flip, in order", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const pool = await createInProcessPool(options(dir.path));
  try {
    const { uuid } = await setUp(pool, receiver.url);
    await pingThrough(pool, ping(uuid, T0 + MINUTE)); // new → up: silent
    await pool.advance(T0 + MINUTE + DAY + HOUR - 1);
    // a notification is in the outbox in the same commit as its flip: empty means none was made
    assert.equal(await pool.listOutbox(), [], "nothing before the deadline, nothing for new → up");
    await pool.advance(T0 + 3 * DAY); // down at its deadline
    await pingThrough(pool, ping(uuid, T0 + 3 * DAY + MINUTE)); // and up again
    const [down, up] = await until(receiver.requests, 2);
    assert.equal(
      [down.method, down.path, down.body, down.headers["x-check"]],
      ["POST", "/down?name=db%20backup", "db backup is down: backup log line", uuid],
    );
    assert.equal([up.method, up.path], ["GET", "/up/db%20backup"]);
    // the marker: a third flip's request comes after any repeat of the first two on this channel
    await pingThrough(pool, ping(uuid, T0 + 3 * DAY + 2 * MINUTE, "fail"));
    await until(receiver.requests, 3);
    await outboxWhen(pool, (entries) => entries.length === 0);
    assert.equal(
      receiver.requests.map((r) => r.path),
      ["/down?name=db%20backup", "/up/db%20backup", "/down?name=db%20backup"],
      "exactly once each",
    );
  } finally {
    await pool.close();
    await receiver.close();
    dir.remove();
  }
});

test("a receiver answering 500 gets a retry after the backoff, and a restart in between loses nothing", async () => {
  const receiver = await httpReceiver((_req: Captured, index: number) => ({ status: index === 0 ? 500 : 200 }));
  const dir = tempDir();
  let pool = await createInProcessPool(options(dir.path));
  try {
    const { uuid } = await setUp(pool, receiver.url);
    await pingThrough(pool, ping(uuid, T0 + MINUTE, "fail")); // new → down notifies
    await until(receiver.requests, 1);
    const pending = await outboxWhen(pool, (entries) => entries.some((e) => e.attempts > 0)); // the failure is recorded
    assert.is(pending.length, 1);
    assert.is(pending[0].attempts, 1);
    assert.match(pending[0].lastError ?? "", /500/);
    await pool.close();

    pool = await createInProcessPool(options(dir.path));
    assert.is((await pool.listOutbox()).length, 1, "the pending notification survived the restart");
    await pool.advance(T0 + MINUTE + 5 * MINUTE); // past the backoff
    await until(receiver.requests, 2);
    await pingThrough(pool, ping(uuid, T0 + 7 * MINUTE)); // the marker: an up flip, delivered after the retried down
    await until(receiver.requests, 3);
    await outboxWhen(pool, (entries) => entries.length === 0);
    assert.equal(
      receiver.requests.map((r) => r.path),
      ["/down?name=db%20backup", "/down?name=db%20backup", "/up/db%20backup"],
    );
  } finally {
    await pool.close();
    await receiver.close();
    dir.remove();
  }
});

test("an email integration sends a mail naming the check and its new status over SMTP", async () => {
  const smtp = await smtpReceiver();
  const dir = tempDir();
  const pool = await createInProcessPool(options(dir.path, smtp.url));
  try {
    const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 1000 }, T0);
    await pool.addChannel(project.id, { kind: "email", name: "", value: { kind: "email", address: "oncall@example.com" } }, T0);
    const made = await pool.createCheck(project.id, { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE, channels: { all: true } }, [], T0);
    if (!made.ok) throw new Error("create failed");
    await pingThrough(pool, ping(made.value.check.uuid, T0));
    await pool.advance(T0 + 2 * HOUR);
    const [mail] = await until(smtp.mails, 1);
    assert.match(mail.subject ?? "", /nightly/);
    assert.match(mail.subject ?? "", /DOWN/i);
    assert.is(mail.to && !Array.isArray(mail.to) ? mail.to.text : "", "oncall@example.com");
    assert.ok((mail.text ?? "").length > 0 && typeof mail.html === "string");
  } finally {
    await pool.close();
    await smtp.close();
    dir.remove();
  }
});

test("with several shards each notification is delivered by one shard only, retries included", async () => {
  const receiver = await httpReceiver((_req: Captured, index: number) => ({ status: index === 0 ? 500 : 200 }));
  const dir = tempDir();
  const pool = await createInProcessPool({ ...options(dir.path), shards: 4 });
  try {
    const { uuid } = await setUp(pool, receiver.url);
    await pingThrough(pool, ping(uuid, T0 + MINUTE, "fail"));
    await until(receiver.requests, 1);
    const pending = await outboxWhen(pool, (entries) => entries.some((e) => e.attempts > 0)); // the failure is recorded
    assert.equal(
      pending.map((e) => e.attempts),
      [1],
      "listed once, not once per shard",
    );
    await pool.advance(T0 + HOUR);
    await until(receiver.requests, 2);
    await pingThrough(pool, ping(uuid, T0 + HOUR + MINUTE)); // the marker: an up flip, delivered after the retry
    await until(receiver.requests, 3);
    await outboxWhen(pool, (entries) => entries.length === 0);
    assert.equal(
      receiver.requests.map((r) => r.path),
      ["/down?name=db%20backup", "/down?name=db%20backup", "/up/db%20backup"],
      "one first attempt, one retry, then the marker",
    );
  } finally {
    await pool.close();
    await receiver.close();
    dir.remove();
  }
});

test.run();
