// Email reports (CONTRACT "Alerting, third part") through a real SMTP server (smtp-server), with the
// accounts in a real DATA_DIR/accounts.json and an in-process pool: a user who chose monthly reports gets
// one message for each month that ends, with the reference's summary and each check's downtime in that
// month and the one before; none is sent twice, whatever the restarts (a report marked done is never sent
// again, one claimed and not marked is sent once more with the same Message-ID), none is lost when the SMTP
// server refuses it for a while, and a claim of another node holds until it is stale.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import type { ParsedMail } from "mailparser";
import { simpleParser } from "mailparser";
import { createInProcessPool } from "../../app/pools.ts";
import { Accounts } from "../../host/accounts.ts";
import type { Pool } from "../../host/pool-api.ts";
import type { Millis } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { claimed, CLAIM_STALE_MS, dueReport, reportPeriodAt, withReports } from "../../host/report-claims.ts";
import { ReportScheduler } from "../../notify/report-scheduler.ts";
import { sendEmail } from "../../notify/send.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { pingThrough, tempDir } from "../helpers.ts";

const JAN_10 = Date.UTC(2026, 0, 10, 12);
const FEB_1 = Date.UTC(2026, 1, 1);

/** An SMTP server that refuses every message while `refusing` is true; `mails` are those it took. */
async function smtp() {
  const mails: ParsedMail[] = [];
  const state = { refusing: false, refused: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      if (state.refusing) {
        state.refused++;
        stream.resume();
        stream.on("end", () => callback(Object.assign(new Error("mailbox busy"), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    mails,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Rig = { pool: Pool; dir: ReturnType<typeof tempDir>; userId: string; projectId: string; clock: { at: Millis } };

/** A pool with one project ("Ops": a check up all January, one down 3 hours on the 20th) and a member who chose monthly reports on January 10th. */
async function rig(): Promise<Rig> {
  const dir = tempDir();
  const clock = { at: JAN_10 };
  const pool = await createInProcessPool({
    dataDir: dir.path,
    shards: 1,
    durability: "commit",
    startAt: Date.UTC(2025, 11, 1),
    clock: "virtual",
    notify: { siteRoot: "http://hcd.example", allowPrivateIps: true, smtpUrl: null },
  });
  const project = await pool.createProject(
    { name: "Ops", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000 },
    Date.UTC(2025, 11, 1),
  );
  const steady = await pool.createCheck(project.id, { name: "steady", timeoutMs: 365 * DAY, graceMs: HOUR }, [], Date.UTC(2025, 11, 1));
  const flaky = await pool.createCheck(project.id, { name: "flaky", timeoutMs: 365 * DAY, graceMs: HOUR }, [], Date.UTC(2025, 11, 1));
  if (!steady.ok || !flaky.ok) throw new Error("create failed");
  await pingThrough(pool, pingOf({ uuid: steady.value.check.uuid }, Date.UTC(2025, 11, 2)));
  await pingThrough(pool, pingOf({ uuid: flaky.value.check.uuid }, Date.UTC(2025, 11, 2)));
  await pingThrough(pool, pingOf({ uuid: flaky.value.check.uuid }, Date.UTC(2026, 0, 20), { signal: "fail" }));
  await pingThrough(pool, pingOf({ uuid: flaky.value.check.uuid }, Date.UTC(2026, 0, 20, 3)));
  const accounts = Accounts.open(dir.path);
  const made = await accounts.createUser({ email: "ann@example.com", password: "a long enough password" }, JAN_10);
  if (!made.ok) throw new Error("user");
  await accounts.setRole(project.id, made.value.user.id, "member");
  await accounts.updateUser(made.value.user.id, (user) => withReports(user, "monthly", JAN_10));
  return { pool, dir, userId: made.value.user.id, projectId: project.id, clock };
}

function scheduler(r: Rig, url: string, node = "local"): ReportScheduler {
  return new ReportScheduler({
    accounts: Accounts.open(r.dir.path),
    pool: r.pool,
    now: () => r.clock.at,
    node,
    siteRoot: "http://hcd.example",
    send: (message) => sendEmail(message, { smtpUrl: url, from: "hcd@localhost", timeoutMs: 10_000 }),
  });
}

test("the schedule: the first report covers the first month to end after the choice; a claim of another node holds until stale", () => {
  const user = { id: "u", email: "a@b.c", passwordHash: null, createdAt: 0 };
  const monthly = withReports(user, "monthly", JAN_10);
  if (monthly === null) throw new Error("no change");
  assert.equal(monthly.reports, { every: "monthly", doneUpTo: "2025-12" });
  assert.is(dueReport(monthly, FEB_1 - 1), null, "January is not over");
  assert.equal(dueReport(monthly, FEB_1)?.label, "2026-01");
  assert.equal(
    withReports(user, "weekly", JAN_10)?.reports,
    { every: "weekly", doneUpTo: "2025-12-29" },
    "Saturday the 10th: the last week to end began on Monday December 29th",
  );
  const period = reportPeriodAt("monthly", FEB_1);
  const theirs = claimed(monthly, period, "b", FEB_1);
  if (theirs === null) throw new Error("not claimed");
  assert.is(claimed(theirs, period, "a", FEB_1 + CLAIM_STALE_MS - 1), null, "another node's fresh claim holds");
  assert.equal(
    claimed(theirs, period, "a", FEB_1 + CLAIM_STALE_MS)?.reports?.claim,
    { period: "2026-01", by: "a", at: FEB_1 + CLAIM_STALE_MS },
    "a stale one is taken over",
  );
  assert.ok(claimed(theirs, period, "b", FEB_1 + 1) !== null, "a node's own claim is its to send again");
  assert.is(withReports(monthly, "monthly", FEB_1), null, "the same choice changes nothing");
  assert.equal(withReports(monthly, "off", FEB_1), user);
});

test("one report a month, with the reference's summary and each check's downtime; none twice across restarts", async () => {
  const r = await rig();
  const server = await smtp();
  try {
    assert.is(await scheduler(r, server.url).tick(), 0, "January is not over");
    r.clock.at = FEB_1 + 5 * MINUTE;
    const first = scheduler(r, server.url);
    assert.is(await first.tick(), 1);
    assert.is(await first.tick(), 0, "done: not again");
    assert.is(await scheduler(r, server.url).tick(), 0, "nor after a restart (the accounts read anew from the file)");
    assert.is(server.mails.length, 1);
    const [mail] = server.mails;
    assert.is(mail.subject, "Monthly Report");
    assert.is(mail.to && !Array.isArray(mail.to) ? mail.to.text : "", "ann@example.com");
    assert.is(mail.messageId, `<report-${r.userId}-2026-01@hcd.example>`);
    assert.ok(
      mail.headerLines.some((h) => h.line === "List-Unsubscribe: <http://hcd.example/account>"),
      "List-Unsubscribe names the account page",
    );
    const text = mail.text ?? "";

    assert.match(text, "In January, 1 check had 1 downtime event.");
    assert.match(text, 'Project "Ops"');
    assert.match(text, "up  flaky\n    Dec 2025: All good!\n    Jan 2026: 1 downtime, 3 hours, 0 minutes total");
    assert.match(text, "up  steady\n    Dec 2025: All good!\n    Jan 2026: All good!");
    assert.match(mail.html || "", "<td>1 downtime, 3 hours, 0 minutes total</td>");
  } finally {
    await server.close();
    await r.pool.close();
    r.dir.remove();
  }
});

test("a report claimed and not marked done (a crash in between) is sent once more, with the same Message-ID; a refusing SMTP server delays it, never drops it", async () => {
  const r = await rig();
  const server = await smtp();
  try {
    r.clock.at = FEB_1 + MINUTE;
    const accounts = Accounts.open(r.dir.path);
    await accounts.updateUser(r.userId, (u) => claimed(u, reportPeriodAt("monthly", r.clock.at), "local", r.clock.at)); // claimed, then the process died
    server.state.refusing = true;
    const restarted = scheduler(r, server.url);
    assert.is(await restarted.tick(), 0);
    assert.is(server.state.refused, 1, "refused: kept for the next round");
    server.state.refusing = false;
    assert.is(await restarted.tick(), 1);
    assert.is(await scheduler(r, server.url).tick(), 0);
    assert.equal(
      server.mails.map((m) => m.messageId),
      [`<report-${r.userId}-2026-01@hcd.example>`],
    );
  } finally {
    await server.close();
    await r.pool.close();
    r.dir.remove();
  }
});

test("another node's fresh claim is left to it; once stale this node sends the report", async () => {
  const r = await rig();
  const server = await smtp();
  try {
    r.clock.at = FEB_1 + MINUTE;
    await Accounts.open(r.dir.path).updateUser(r.userId, (u) =>
      claimed(u, reportPeriodAt("monthly", r.clock.at), "other-node", r.clock.at),
    );
    assert.is(await scheduler(r, server.url, "this-node").tick(), 0);
    r.clock.at += CLAIM_STALE_MS;
    assert.is(await scheduler(r, server.url, "this-node").tick(), 1);
    assert.is(server.mails.length, 1);
  } finally {
    await server.close();
    await r.pool.close();
    r.dir.remove();
  }
});

test("reports off: nothing is sent", async () => {
  const r = await rig();
  const server = await smtp();
  try {
    await Accounts.open(r.dir.path).updateUser(r.userId, (u) => withReports(u, "off", JAN_10));
    r.clock.at = FEB_1 + 40 * DAY;
    assert.is(await scheduler(r, server.url).tick(), 0);
    assert.equal(server.mails, []);
  } finally {
    await server.close();
    await r.pool.close();
    r.dir.remove();
  }
});

test.run();
