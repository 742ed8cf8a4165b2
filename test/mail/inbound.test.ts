// Real mail over loopback (nodemailer, or a raw socket where the dialogue itself is tested) to a
// listener on an in-process pool.
import { connect } from "node:net";
import type { Socket } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createTransport } from "nodemailer";
import { VirtualClock } from "../../host/clock.ts";
import { createInProcessPool } from "../../app/pools.ts";
import type { PingCommand, Pool } from "../../host/pool-api.ts";
import type { CheckSpec, Check, PingRecord, Project } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import { startInboundSmtp } from "../../mail/inbound.ts";
import { startMailReader } from "../../mail/mail-reader.ts";
import type { MailPool } from "../../mail/inbound.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const DOMAIN = "hc.test";
const SENDER = "cron@example.com";
const MAX_BYTES = 64 * 1024;
// one parsing worker for every listener of this file: starting one (mailparser loaded) takes most of a second
const reader = startMailReader();
test.after(() => reader.close());

type World = {
  pool: Pool;
  clock: VirtualClock;
  project: Project;
  port: number;
  newCheck(spec?: CheckSpec): Promise<Check>;
  send(mail: { to: string[]; subject?: string; text?: string; html?: string; raw?: string | Buffer }): Promise<SentInfo>;
  pings(uuid: string): Promise<PingRecord[]>;
  check(uuid: string): Promise<Check>;
  /** Makes the next ping of this check fail as a full disk would (the pool rejects it). */
  failNextPing(uuid: string): void;
};
type SentInfo = { accepted: string[]; rejected: string[]; response: string };

/** Runs `body` against a fresh pool, project and listener, and always tears them down. */
async function withListener(body: (world: World) => Promise<void>, pingBodyLimit = 10_000): Promise<void> {
  const dir = tempDir();
  const clock = new VirtualClock(T0);
  const pool = await createInProcessPool({
    dataDir: dir.path,
    shards: 1,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  });
  const failing = new Set<string>();
  const listenerPool: MailPool = {
    // the real pool, but a ping can be made to fail once
    projectOfCheck: (uuid) => pool.projectOfCheck(uuid),
    projectByPingKey: (key) => pool.projectByPingKey(key),
    catchUp: () => pool.catchUp(),
    listChecks: (projectId, query) => pool.listChecks(projectId, query),
    ping: (projectId, command) => {
      if ("uuid" in command.target && failing.delete(command.target.uuid)) return Promise.reject(new Error("disk full"));
      return pool.ping(projectId, command);
    },
  };
  const listener = await startInboundSmtp({
    reader,
    port: 0,
    host: "127.0.0.1",
    domain: DOMAIN,
    pool: listenerPool,
    clock,
    maxMessageBytes: MAX_BYTES,
  });
  const transport = createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true });
  try {
    const project = await pool.createProject({ name: "mail", checkLimit: 20, pingLogLimit: 100, pingBodyLimit }, T0);
    await body({
      pool,
      clock,
      project,
      port: listener.port,
      async newCheck(spec = {}) {
        const created = await pool.createCheck(project.id, spec, [], T0);
        if (!created.ok) throw new Error(`createCheck: ${created.failure.code}`);
        return created.value.check;
      },
      async send({ to, raw, ...message }) {
        const envelope = { from: SENDER, to };
        const info = await transport.sendMail(raw === undefined ? { envelope, from: SENDER, to, ...message } : { envelope, raw });
        return { accepted: info.accepted.map(String), rejected: info.rejected.map(String), response: info.response };
      },
      async pings(uuid) {
        const listed = await pool.listPings(project.id, uuid);
        if (!listed.ok) throw new Error(`listPings: ${listed.failure.code}`);
        return listed.value.pings;
      },
      async check(uuid) {
        const got = await pool.getCheck(project.id, { uuid });
        if (!got.ok) throw new Error(`getCheck: ${got.failure.code}`);
        return got.value;
      },
      failNextPing: (uuid) => failing.add(uuid),
    });
  } finally {
    transport.close();
    await listener.close();
    await pool.close();
    dir.remove();
  }
}

/** Returns the rejection of a send that must fail, with its SMTP reply code. */
async function refusal(sending: Promise<unknown>): Promise<{ responseCode?: number; response?: string }> {
  try {
    await sending;
  } catch (error) {
    return error as { responseCode?: number; response?: string };
  }
  throw new Error("the message was accepted");
}

/** Speaks SMTP line by line over a raw socket; returns each reply (the greeting first). */
async function dialogue(port: number, commands: string[]): Promise<string[]> {
  const socket = connect(port, "127.0.0.1");
  socket.setEncoding("utf8");
  let buffered = "";
  let failure: Error | null = null;
  let wake = () => {};
  socket.on("data", (data: string) => {
    buffered += data;
    wake();
  });
  socket.on("error", (error) => {
    failure = error;
    wake();
  });
  socket.on("close", () => {
    failure ??= new Error("connection closed");
    wake();
  });
  const nextReply = async (): Promise<string> => {
    for (;;) {
      const end = /^\d{3} .*\r\n/m.exec(buffered); // a reply's last line has a space after the code
      if (end !== null) {
        const reply = buffered.slice(0, end.index + end[0].length);
        buffered = buffered.slice(reply.length);
        return reply.trimEnd();
      }
      if (failure !== null) throw failure;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  const replies: string[] = [];
  try {
    replies.push(await nextReply());
    for (const command of commands) {
      socket.write(command + "\r\n");
      replies.push(await nextReply());
    }
  } finally {
    socket.destroy();
  }
  return replies;
}

test("a mail to <uuid>@domain is a success ping recorded as the reference records it", async () => {
  await withListener(async ({ clock, newCheck, send, pings, check, pool, project }) => {
    const { uuid } = await newCheck({ name: "backup" });
    clock.advance(MINUTE);
    const info = await send({ to: [`${uuid}@${DOMAIN}`], subject: "Backup report", text: "All good" });
    assert.match(info.response, /^250 /);
    const [ping] = await pings(uuid);
    assert.equal(
      { ...ping, bodySize: 0 },
      {
        n: 1,
        at: T0 + MINUTE,
        kind: "success",
        scheme: "email",
        remoteAddr: "127.0.0.1",
        method: "",
        ua: `Email from ${SENDER}`,
        rid: null,
        exitStatus: null,
        bodySize: 0,
      },
    );
    assert.is((await check(uuid)).status, "up");
    const body = await pool.pingBody(project.id, uuid, 1);
    const text = body.ok ? new TextDecoder().decode(body.value) : "";
    assert.match(text, /^(?:[\s\S]*\r\n)?Subject: Backup report\r\n/); // the raw message, headers included
    assert.ok(text.includes("All good"));
    assert.is(ping.bodySize, body.ok ? body.value.length : -1);
  });
});

const keywordRows: [
  name: string,
  spec: CheckSpec,
  mail: { subject: string; text?: string; html?: string },
  kind: string,
  status: string,
][] = [
  [
    "a failure keyword in the subject (filter_subject) is a fail ping",
    { filterSubject: true, failureKw: "FAILED", successKw: "OK" },
    { subject: "Backup FAILED", text: "OK" },
    "fail",
    "down",
  ],
  [
    "a failure keyword beats a success keyword",
    { filterSubject: true, failureKw: "FAILED", successKw: "Backup" },
    { subject: "Backup FAILED" },
    "fail",
    "down",
  ],
  [
    "filter_body searches the body, not the subject",
    { filterBody: true, failureKw: "FAILED", successKw: "finished" },
    { subject: "FAILED?", text: "job finished" },
    "success",
    "up",
  ],
  [
    "filter_body searches an HTML body as text",
    { filterBody: true, failureKw: "ERROR" },
    { subject: "report", html: "<p><b>ERR</b>OR in step 2</p>" },
    "fail",
    "down",
  ],
  ["no keyword matching is ignored", { filterSubject: true, successKw: "done" }, { subject: "hello" }, "ign", "new"],
  [
    "no keyword matching with filter_default_fail is a fail ping",
    { filterSubject: true, successKw: "done", filterDefaultFail: true },
    { subject: "hello" },
    "fail",
    "down",
  ],
  [
    "a start keyword is a start ping",
    { filterSubject: true, startKw: "begins", successKw: "ends" },
    { subject: "backup begins" },
    "start",
    "new",
  ],
  [
    "keywords don't apply without filter_subject or filter_body",
    { failureKw: "FAILED", filterHttpBody: true },
    { subject: "FAILED", text: "FAILED" },
    "success",
    "up",
  ],
];
for (const [name, spec, mail, kind, status] of keywordRows) {
  test(name, async () => {
    await withListener(async ({ newCheck, send, pings, check }) => {
      const { uuid } = await newCheck(spec);
      await send({ to: [`${uuid}@${DOMAIN}`], ...mail });
      const recorded = await pings(uuid);
      assert.equal(
        recorded.map((p) => [p.kind, p.scheme]),
        [[kind, "email"]],
      );
      const after = await check(uuid);
      assert.is(after.status, status);
      if (kind === "start") assert.is(after.lastStartAt, T0);
    });
  });
}

test("<ping-key>+<slug>@domain pings the check with that slug; the domain's case doesn't matter", async () => {
  await withListener(async ({ project, newCheck, send, pings }) => {
    const other = await newCheck({ slug: "other" });
    const target = await newCheck({ slug: "nightly-db" });
    const info = await send({ to: [`${project.pingKey}+nightly-db@HC.Test`], subject: "s", text: "t" });
    assert.equal(info.rejected, []);
    assert.equal(
      (await pings(target.uuid)).map((p) => p.kind),
      ["success"],
    );
    assert.equal(await pings(other.uuid), []);
  });
});

test("every recipient of one message gets its own ping at the same instant", async () => {
  await withListener(async ({ project, newCheck, send, pings }) => {
    const a = await newCheck({ slug: "a" });
    const b = await newCheck({ filterSubject: true, failureKw: "broken" });
    await send({ to: [`${project.pingKey}+a@${DOMAIN}`, `${b.uuid.toUpperCase()}@${DOMAIN}`], subject: "all broken" });
    const [pingA] = await pings(a.uuid);
    const [pingB] = await pings(b.uuid);
    assert.equal([pingA.kind, pingB.kind], ["success", "fail"]);
    assert.is(pingA.at, pingB.at);
  });
});

test("unknown checks, other domains and odd mailboxes are refused at RCPT with 550", async () => {
  await withListener(async ({ project, newCheck, send }) => {
    const { uuid } = await newCheck({ slug: "known" });
    const refused = [
      `00000000-0000-4000-8000-00000000dead@${DOMAIN}`,
      `${uuid}@example.com`,
      `postmaster@${DOMAIN}`,
      `${project.pingKey}+unknown@${DOMAIN}`,
      `aaaaaaaaaaaaaaaaaaaaaa+known@${DOMAIN}`, // someone else's (no one's) ping key
    ];
    for (const to of refused) {
      const error = await refusal(send({ to: [to], subject: "s" }));
      assert.is(error.responseCode, 550, to);
    }
  });
});

test("a refused recipient doesn't stop the others", async () => {
  await withListener(async ({ newCheck, send, pings }) => {
    const { uuid } = await newCheck();
    const unknown = `00000000-0000-4000-8000-00000000dead@${DOMAIN}`;
    const info = await send({ to: [unknown, `${uuid}@${DOMAIN}`], subject: "s" });
    assert.equal(info.rejected, [unknown]);
    assert.equal((await pings(uuid)).length, 1);
  });
});

test("a slug shared by several checks is refused at RCPT and nothing is recorded", async () => {
  await withListener(async ({ project, newCheck, send, pings }) => {
    const first = await newCheck({ name: "one", slug: "twin" });
    const second = await newCheck({ name: "two", slug: "twin" });
    const error = await refusal(send({ to: [`${project.pingKey}+twin@${DOMAIN}`], subject: "s" }));
    assert.is(error.responseCode, 550);
    assert.match(error.response ?? "", /Ambiguous/);
    assert.equal([...(await pings(first.uuid)), ...(await pings(second.uuid))], []);
  });
});

test("a message over the size limit is answered 552 and not recorded", async () => {
  await withListener(async ({ newCheck, send, pings }) => {
    const { uuid } = await newCheck();
    const error = await refusal(send({ to: [`${uuid}@${DOMAIN}`], subject: "big", text: "x".repeat(MAX_BYTES + 1) }));
    assert.is(error.responseCode, 552);
    assert.equal(await pings(uuid), []);
  });
});

test("SIZE is advertised, STARTTLS and AUTH are not, and an oversized DATA without SIZE= is answered 552", async () => {
  await withListener(async ({ port, newCheck, pings }) => {
    const { uuid } = await newCheck();
    const replies = await dialogue(port, [
      "EHLO client.test",
      `MAIL FROM:<${SENDER}>`,
      `RCPT TO:<${uuid}@${DOMAIN}>`,
      "DATA",
      `Subject: big\r\n\r\n${"y".repeat(MAX_BYTES)}\r\n.`,
      "QUIT",
    ]);
    const ehlo = replies[1];
    assert.ok(ehlo.includes(`SIZE ${MAX_BYTES}`), ehlo);
    assert.not.ok(/STARTTLS|AUTH/.test(ehlo), ehlo);
    assert.equal(
      replies.slice(2).map((reply) => reply.slice(0, 3)),
      ["250", "250", "354", "552", "221"],
    );
    assert.equal(await pings(uuid), []);
  });
});

test("a malformed message doesn't crash the listener, which keeps serving", async () => {
  await withListener(async ({ port, newCheck, send, pings }) => {
    const { uuid } = await newCheck({ filterBody: true, successKw: "fine" });
    const garbage = [
      'Content-Type: multipart/mixed; boundary="never-closed"',
      "Content-Transfer-Encoding: base64",
      "Subject: =?x-unknown?Q?=ZZ=?=",
      "",
      "--never-closed",
      "Content-Type: text/html; charset=no-such-charset",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "<p <<< =ZZ= \u0000\u00ff",
      "--never-closed",
      "Content-Type: message/rfc822",
      "",
      "Content-Type: text/plain; charset=utf-16",
      "",
      "\ud800",
    ].join("\r\n");
    const tooManyParts = `Content-Type: multipart/mixed; boundary="b"\r\n\r\n${"--b\r\n\r\nx\r\n".repeat(1001)}--b--`;
    const replies = await dialogue(port, [
      "EHLO client.test",
      `MAIL FROM:<${SENDER}>`,
      `RCPT TO:<${uuid}@${DOMAIN}>`,
      "DATA",
      `${garbage}\r\n.`,
      "MAIL FROM:<>",
      `RCPT TO:<${uuid}@${DOMAIN}>`,
      "DATA",
      `${tooManyParts}\r\n.`,
      "MAIL FROM:<>",
      `RCPT TO:<${uuid}@${DOMAIN}>`,
      "DATA",
      "\r\n.",
      "QUIT",
    ]);
    assert.ok(/^(250|550) /.test(replies[5]), replies[5]); // mailparser makes what it can of it: stored
    assert.match(replies[9], /^550 5\.6\.0 /); // past the parser's limits: refused for good
    assert.match(replies[13], /^250 /); // an empty message on the same connection is still a ping
    const info = await send({ to: [`${uuid}@${DOMAIN}`], subject: "all fine", text: "fine" });
    assert.match(info.response, /^250 /);
    const kinds = (await pings(uuid)).map((p) => p.kind);
    assert.is(kinds[0], "success"); // the newest: the well-formed message
    assert.is(kinds.length, 3); // garbage, empty, well-formed; not the refused one
  });
});

test("the stored body is cut to the project's ping_body_limit", async () => {
  await withListener(async ({ project, pool, newCheck, send, pings }) => {
    const { uuid } = await newCheck({ filterBody: true, successKw: "found" });
    await send({ to: [`${uuid}@${DOMAIN}`], subject: "s", text: `${"z".repeat(500)} found` });
    const [ping] = await pings(uuid);
    assert.is(ping.bodySize, 100);
    assert.is(ping.kind, "success"); // keywords search the whole message, not the cut body
    const body = await pool.pingBody(project.id, uuid, 1);
    assert.is(body.ok && body.value.length, 100);
  }, 100);
});

const stubProject: Project = {
  id: "p",
  name: "p",
  apiKey: "",
  apiKeyReadonly: "",
  pingKey: "k",
  badgeKey: "",
  checkLimit: 20,
  pingLogLimit: 100,
  pingBodyLimit: 10,
  createdAt: T0,
};

test("the command carries the decoded mail and a body of its own, cut to the limit", async () => {
  const commands: PingCommand[] = [];
  const projectIds: string[] = [];
  const pool: MailPool = {
    projectOfCheck: () => stubProject,
    projectByPingKey: () => null,
    catchUp: async () => {},
    listChecks: async () => [],
    ping: async (projectId, command) => {
      projectIds.push(projectId);
      commands.push(command);
      return { ok: true, value: { checkUuid: "u", created: false } };
    },
  };
  const listener = await startInboundSmtp({ reader, port: 0, host: "127.0.0.1", domain: DOMAIN, pool, clock: new VirtualClock(T0) });
  const transport = createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true });
  try {
    const to = `00000000-0000-4000-8000-000000000001@${DOMAIN}`;
    await transport.sendMail({ envelope: { from: SENDER, to: [to] }, raw: "Subject: Hello\r\n\r\nWorld\r\n" });
    const [{ body, email, target }] = commands;
    assert.equal(
      { target, email },
      { target: { uuid: "00000000-0000-4000-8000-000000000001" }, email: { subject: "Hello", text: "World\n" } },
    );
    assert.equal(projectIds, ["p"], "the project resolved at RCPT goes along with the ping");
    assert.equal([body?.length, body?.buffer.byteLength], [10, 10]); // not a view of the whole message
    assert.equal(new TextDecoder().decode(body ?? new Uint8Array()), "Subject: H");
  } finally {
    transport.close();
    await listener.close();
  }
});

test("past maxClients a new connection hears 421 and is closed; a freed slot serves again", async () => {
  const listener = await startInboundSmtp({
    reader,
    port: 0,
    host: "127.0.0.1",
    domain: DOMAIN,
    pool: failingPool(stubProject),
    clock: new VirtualClock(T0),
    maxClients: 2,
  });
  const greeting = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (data: string) => {
        text += data;
        if (text.includes("\r\n")) resolve(text.trimEnd());
      });
      socket.on("close", () => resolve(text.trimEnd()));
      socket.on("error", () => {});
    });
  const open = async () => {
    const socket = connect(listener.port, "127.0.0.1");
    return { socket, first: await greeting(socket) };
  };
  const held = [await open(), await open()];
  try {
    assert.equal(
      held.map((h) => h.first.slice(0, 4)),
      ["220 ", "220 "],
    );
    const third = await open();
    assert.match(third.first, /^421 .*Too many connected clients/);
    await new Promise<void>((resolve) => (third.socket.closed ? resolve() : third.socket.once("close", () => resolve())));
    held.pop()?.socket.destroy();
    // the server frees the slot when it sees the close, which the client cannot observe: knock until
    // greeted (a 421 is a closed connection, so each knock leaves nothing open); a slot never freed fails
    let again = await open();
    for (let knock = 1; !again.first.startsWith("220 ") && knock < 100; knock++) {
      await new Promise<void>((resolve) => (again.socket.closed ? resolve() : again.socket.once("close", () => resolve())));
      again = await open();
    }
    assert.match(again.first, /^220 /);
    again.socket.destroy();
  } finally {
    for (const h of held) h.socket.destroy();
    await listener.close();
  }
});

test("a 451 for a later recipient: the sender's retry of the whole message pings only the recipients not yet pinged", async () => {
  await withListener(async ({ newCheck, send, pings, failNextPing }) => {
    const a = await newCheck({ name: "first" }),
      b = await newCheck({ name: "second" });
    const to = [`${a.uuid}@${DOMAIN}`, `${b.uuid}@${DOMAIN}`];
    const counts = async () => [(await pings(a.uuid)).length, (await pings(b.uuid)).length];
    const raw = `From: ${SENDER}\r\nSubject: nightly\r\nMessage-ID: <run-1@example.com>\r\n\r\ndone\r\n`;
    failNextPing(b.uuid);
    const refused = await refusal(send({ to, raw }));
    assert.is(refused.responseCode, 451);
    assert.equal(await counts(), [1, 0], "the first recipient was pinged before the second failed");
    const retried = await send({ to, raw }); // what a mail server does after a 451: the same bytes again
    assert.equal([retried.accepted, retried.rejected], [to, []]);
    assert.equal(await counts(), [1, 1], "the retry pinged only the second");
    await send({ to, raw: raw.replace("nightly", "nightly again") }); // another message: both pinged
    assert.equal(await counts(), [2, 2]);
    await send({ to, raw }); // the first message's bytes once more, after it went through whole: a new message
    assert.equal(await counts(), [3, 3]);
  });
});

// A pool that resolves every address but fails to store: the sender must retry later.
const failingPool = (project: Project): MailPool => ({
  projectOfCheck: () => project,
  projectByPingKey: () => project,
  catchUp: async () => {},
  listChecks: async () => [],
  ping: async () => {
    throw new Error("disk full");
  },
});

test("a pool failure is answered 451 (try again later) and the listener keeps serving", async () => {
  const errors: unknown[] = [];
  const listener = await startInboundSmtp({
    reader,
    port: 0,
    host: "127.0.0.1",
    domain: DOMAIN,
    pool: failingPool(stubProject),
    clock: new VirtualClock(T0),
    onError: (error) => errors.push(error),
  });
  const transport = createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true });
  try {
    const to = `00000000-0000-4000-8000-000000000001@${DOMAIN}`;
    for (let i = 0; i < 2; i++) {
      const error = await refusal(transport.sendMail({ envelope: { from: SENDER, to: [to] }, raw: "Subject: s\r\n\r\nbody\r\n" }));
      assert.is(error.responseCode, 451);
    }
    assert.equal(
      errors.map((e) => (e as Error).message),
      ["disk full", "disk full"],
    );
  } finally {
    transport.close();
    await listener.close();
  }
});

test.run();
