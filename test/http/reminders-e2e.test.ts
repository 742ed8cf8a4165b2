// Alerting end to end in the real server (`node dist/app/main.js`, CLOCK=virtual, two shards) against a
// real local webhook receiver: a failure threshold, a project mute, reminders at their due times, and
// reminders neither duplicated nor lost across a SIGKILL and a restart on the same DATA_DIR.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import type { RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";

const TOKEN = "alerting-e2e-admin-token-0123456789";
const ADMIN = { authorization: `Bearer ${TOKEN}` };
const ENV = { ADMIN_TOKEN: TOKEN, CLOCK: "virtual", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true", DURABILITY: "flush" };
const S = 1000;

/** One answered webhook request: direction, $STATUS, $REMINDER and $NOW. */
type Heard = { path: string; status: string; reminder: string; now: string };

async function pingOk(server: RealServer, path: string): Promise<void> {
  const answer = await call(server.url, "GET", path);
  assert.equal([answer.status, answer.text], [200, "OK"], path);
}

async function clockNow(server: RealServer): Promise<number> {
  return Date.parse((await ok<{ now: string }>(call(server.url, "GET", "/admin/v1/clock", { headers: ADMIN }))).now);
}

async function advance(server: RealServer, seconds: number): Promise<number> {
  return Date.parse(
    (await ok<{ now: string }>(call(server.url, "POST", "/admin/v1/clock", { headers: ADMIN, body: { advance: seconds } }))).now,
  );
}

/** Resolves once `list` has `count` items; fails after 15 s of real time. */
async function until<T>(list: T[], count: number, what: string): Promise<void> {
  const started = Date.now();
  while (list.length < count) {
    if (Date.now() - started > 15_000) throw new Error(`waited for ${count} ${what}, have ${list.length}: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A receiver that records the requests it answered; while `hang()` is on, it never answers. */
async function webhookReceiver() {
  const answered: Heard[] = [];
  let hanging = false;
  const receiver = await httpReceiver((request) => {
    if (hanging) return "hang";
    const url = new URL(request.path, "http://x");
    answered.push({
      path: url.pathname,
      status: url.searchParams.get("s") ?? "",
      reminder: url.searchParams.get("r") ?? "",
      now: url.searchParams.get("now") ?? "",
    });
    return { status: 200 };
  });
  return {
    receiver,
    answered,
    hang: (on: boolean) => {
      hanging = on;
    },
  };
}

async function setUp(server: RealServer, webhook: string, check: Record<string, unknown>) {
  const project = await createProject(server, TOKEN, { name: "ops" });
  const query = "s=$STATUS&r=$REMINDER&now=$NOW";
  await addChannel(server, TOKEN, project.id, {
    kind: "webhook",
    value: {
      method_down: "GET",
      url_down: `${webhook}/down?${query}`,
      method_up: "GET",
      url_up: `${webhook}/up?${query}`,
    },
  });
  const made = await ok<{ uuid: string }>(
    call(server.url, "POST", "/api/v3/checks/", {
      key: project.api_key,
      body: { name: "job", timeout: 3600, grace: 60, channels: "*", ...check },
    }),
  );
  return { project, uuid: made.uuid };
}

const down = (at: number, reminder: 0 | 1): Heard => ({
  path: "/down",
  status: "down",
  reminder: String(reminder),
  now: isoSeconds(at) ?? "",
});
const up = (at: number): Heard => ({ path: "/up", status: "up", reminder: "0", now: isoSeconds(at) ?? "" });

test("threshold and project mute in the real server: down on the 2nd failure; a mute after it pages nothing again, reminders resume after it", async () => {
  const dir = tempDir();
  const { receiver, answered } = await webhookReceiver();
  const server = await startServer({ dataDir: dir.path, env: ENV });
  try {
    const { project, uuid } = await setUp(server, receiver.url, { failure_threshold: 2, reminder_interval: 600 });
    const t0 = await clockNow(server);
    await pingOk(server, `/ping/${uuid}`);
    await pingOk(server, `/ping/${uuid}/fail`); // the 1st failure: still up
    await advance(server, 10);
    await pingOk(server, `/ping/${uuid}/fail`); // the 2nd: down
    await until(answered, 1, "notifications");
    const muted = await ok<{ muted_until: string }>(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/mute`, {
        headers: ADMIN,
        body: { until: new Date(t0 + 1500 * S).toISOString() },
      }),
    );
    assert.is(muted.muted_until, isoSeconds(t0 + 1500 * S));
    // t0 + 1500: the reminder due at t0 + 610 fell inside the mute and is skipped; the outage was notified
    // before the mute, so its end sends no second down: the next reminder is one interval after it
    await advance(server, 1490);
    await advance(server, 600);
    await until(answered, 2, "notifications");
    assert.equal(answered, [down(t0 + 10 * S, 0), down(t0 + 2100 * S, 1)]);
    const check = await ok<{ status: string; failure_threshold: number }>(
      call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key }),
    );
    assert.equal([check.status, check.failure_threshold], ["down", 2]);
  } finally {
    await stopServer(server);
    await receiver.close();
    dir.remove();
  }
});

test("reminders are neither duplicated nor lost across a SIGKILL and a restart", async () => {
  const dir = tempDir();
  const { receiver, answered, hang } = await webhookReceiver();
  let server = await startServer({ dataDir: dir.path, env: ENV });
  try {
    const { project, uuid } = await setUp(server, receiver.url, { reminder_interval: 300 });
    const t0 = await clockNow(server);
    await pingOk(server, `/ping/${uuid}/fail`); // down at t0
    await advance(server, 300);
    await advance(server, 300); // reminders 1 and 2
    await until(answered, 3, "notifications");
    // reminder 3 is queued (durable before the clock answers) and its delivery starts, but is never answered
    hang(true);
    const requestsBefore = receiver.requests.length;
    await advance(server, 300);
    await until(receiver.requests, requestsBefore + 1, "requests of reminder 3");
    server.child.kill("SIGKILL");
    await server.exited;
    hang(false);

    server = await startServer({ dataDir: dir.path, env: ENV });
    // the restarted virtual clock starts at the real now, before t0 + 900: move it to t0 + 1050
    const restartedAt = await clockNow(server);
    await advance(server, Math.ceil((t0 + 1050 * S - restartedAt) / S));
    await until(answered, 4, "notifications after the restart");
    await advance(server, 300); // past t0 + 1200: reminder 4
    await until(answered, 5, "notifications");
    await pingOk(server, `/ping/${uuid}`); // up
    const upAt = await clockNow(server);
    await advance(server, 3000); // ten intervals: no reminder after up
    await pingOk(server, `/ping/${uuid}/fail`); // a marker that comes after anything queued before it
    const downAgainAt = await clockNow(server);
    await until(answered, 7, "notifications");
    assert.equal(answered, [
      down(t0, 0),
      down(t0 + 300 * S, 1),
      down(t0 + 600 * S, 1),
      down(t0 + 900 * S, 1),
      down(t0 + 1200 * S, 1),
      up(upAt),
      down(downAgainAt, 0),
    ]);
    const check = await ok<{ reminder_interval: number }>(call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key }));
    assert.is(check.reminder_interval, 300, "stored and restored");
  } finally {
    await stopServer(server);
    await receiver.close();
    dir.remove();
  }
});

test.run();
