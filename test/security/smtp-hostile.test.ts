// Hostile input against the inbound SMTP listener, over raw sockets: binary garbage, an endless line,
// commands out of order, odd and huge addresses, too many recipients, a client that leaves mid-DATA,
// pipelined commands. Pass = every dialogue gets SMTP errors (never a crash), exactly the pings of the
// well-formed messages are recorded, and the listener still takes a real mail afterwards.
import { connect } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createTransport } from "nodemailer";
import { VirtualClock } from "../../host/clock.ts";
import { createInProcessPool } from "../../app/pools.ts";
import type { Pool } from "../../host/pool-api.ts";
import type { Project } from "../../engine/model.ts";
import { MAX_RECIPIENTS, startInboundSmtp } from "../../mail/inbound.ts";
import type { InboundSmtp } from "../../mail/inbound.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const DOMAIN = "hc.test";
const dir = tempDir();
const errors: unknown[] = [];
let pool: Pool;
let listener: InboundSmtp;
let project: Project;
let uuid = "";

/**
 * Opens a connection, writes every chunk once greeted, and returns everything the server sent until the
 * connection closed: each dialogue here ends in one (QUIT, a 421, or our own hang-up). A dialogue still
 * open after `timeoutMs` is cut and returns what came, which the assertions then find short.
 */
function converse(chunks: (string | Buffer)[], opts: { timeoutMs?: number; endAfterWrite?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(listener.port, "127.0.0.1");
    let received = "";
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(finish, opts.timeoutMs ?? 20_000);
    socket.on("data", (data) => {
      received += data.toString("latin1");
    });
    socket.on("error", () => {}); // a reset is an acceptable end; what was received is the result
    socket.on("close", finish);
    socket.once("data", () => {
      for (const chunk of chunks) socket.write(chunk);
      if (opts.endAfterWrite) socket.destroy(); // gone without a word
    });
  });
}

/** The reply codes of a transcript, in order (the last line of each multi-line reply). */
function codes(transcript: string): number[] {
  return [...transcript.matchAll(/^(\d{3}) /gm)].map((m) => Number(m[1]));
}

/** Pings recorded over every check of the project. */
async function pingCount(): Promise<number> {
  return (await pool.listChecks(project.id, { tags: [] })).reduce((sum, c) => sum + c.nPings, 0);
}

const mail = (to: string, body = "hello") => [
  `MAIL FROM:<cron@example.com>\r\n`,
  `RCPT TO:<${to}>\r\n`,
  "DATA\r\n",
  `Subject: s\r\n\r\n${body}\r\n.\r\n`,
];

test.before(async () => {
  pool = await createInProcessPool({
    dataDir: dir.path,
    shards: 1,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  });
  listener = await startInboundSmtp({
    port: 0,
    host: "127.0.0.1",
    domain: DOMAIN,
    pool,
    clock: new VirtualClock(T0),
    maxMessageBytes: 64 * 1024,
    onError: (error) => errors.push(error),
  });
  project = await pool.createProject({ name: "mail", checkLimit: 200, pingLogLimit: 1000, pingBodyLimit: 1000 }, T0);
  const created = await pool.createCheck(project.id, {}, [], T0);
  if (!created.ok) throw new Error("createCheck");
  uuid = created.value.check.uuid;
  for (let i = 0; i < MAX_RECIPIENTS + 20; i++) {
    if (!(await pool.createCheck(project.id, { slug: `job-${i}` }, [], T0)).ok) throw new Error("createCheck");
  }
});

test.after(async () => {
  await listener.close();
  await pool.close();
  dir.remove();
});

test("binary garbage and an endless line get errors or a closed connection, never a ping", async () => {
  const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  const first = await converse([garbage, "\r\n"]);
  // 500 per unrecognised line, and 421 (closing) after too many of them
  assert.ok(
    codes(first)
      .slice(1)
      .every((code) => code >= 400),
    first.slice(0, 300),
  );
  assert.ok(codes(first).length > 1, "answered");
  const endless = await converse(["EHLO x\r\n", "MAIL FROM:<" + "a".repeat(2 * 1024 * 1024)]);
  assert.ok(codes(endless)[1] === 250, endless.slice(0, 300)); // EHLO answered; then an error or a close
  assert.ok(
    codes(endless)
      .slice(2)
      .every((code) => code >= 400),
    endless.slice(0, 300),
  );
  assert.is(await pingCount(), 0);
});

test("commands out of order are refused with 503 and record nothing", async () => {
  const transcript = await converse([
    "EHLO x\r\n",
    "DATA\r\n",
    `RCPT TO:<${uuid}@${DOMAIN}>\r\n`,
    "MAIL FROM:<a@b.c>\r\n",
    "MAIL FROM:<a@b.c>\r\n",
    "DATA\r\n",
    "QUIT\r\n",
  ]);
  assert.equal(codes(transcript), [220, 250, 503, 503, 250, 503, 503, 221]);
  assert.is(await pingCount(), 0);
});

test("odd, huge and unknown addresses are refused at RCPT; unsupported commands get 5xx", async () => {
  const odd = [
    "<>",
    `<${"a".repeat(5000)}@${DOMAIN}>`,
    `<${uuid}\u0000@${DOMAIN}>`,
    `<ü@${DOMAIN}>`,
    `<"${uuid}"@${DOMAIN}>`,
    `<${uuid.toUpperCase()}x@${DOMAIN}>`,
    `<${uuid}@${DOMAIN}.evil>`,
    `<${project.pingKey}+no-such-slug@${DOMAIN}>`,
    "no-brackets",
    `<${uuid}@>`,
  ];
  const transcript = await converse([
    "EHLO x\r\n",
    "MAIL FROM:<a@b.c>\r\n",
    ...odd.map((a) => `RCPT TO:${a}\r\n`),
    "AUTH PLAIN AGZvbwBiYXI=\r\n",
    "STARTTLS\r\n",
    "BDAT 10 LAST\r\n",
    "XYZZY\r\n",
    "QUIT\r\n",
  ]);
  const replies = codes(transcript);
  assert.equal(replies.slice(0, 3), [220, 250, 250]);
  const rcpt = replies.slice(3, 3 + odd.length);
  assert.is(rcpt.length, odd.length, transcript);
  rcpt.forEach((code, i) => assert.ok(code >= 500 && code < 600, `RCPT TO:${odd[i].slice(0, 60)} → ${code}`));
  assert.ok(
    replies.slice(3 + odd.length, -1).every((code) => code >= 500),
    transcript.slice(-400),
  );
  assert.is(await pingCount(), 0);
});

test(`past ${MAX_RECIPIENTS} recipients a message hears 452, and records one ping per accepted recipient`, async () => {
  const before = await pingCount();
  const repeated = await converse([
    "EHLO x\r\n",
    "MAIL FROM:<a@b.c>\r\n",
    ...Array.from({ length: 3 }, () => `RCPT TO:<${uuid}@${DOMAIN}>\r\n`),
    "DATA\r\n",
    "Subject: s\r\n\r\nx\r\n.\r\n",
    "QUIT\r\n",
  ]);
  assert.equal(codes(repeated), [220, 250, 250, 250, 250, 250, 354, 250, 221]);
  assert.is(await pingCount(), before + 1, "a repeated recipient is one ping");
  const rcpts = Array.from({ length: MAX_RECIPIENTS + 20 }, (_, i) => `RCPT TO:<${project.pingKey}+job-${i}@${DOMAIN}>\r\n`);
  const transcript = await converse([
    "EHLO x\r\n",
    "MAIL FROM:<a@b.c>\r\n",
    ...rcpts,
    "DATA\r\n",
    "Subject: s\r\n\r\nx\r\n.\r\n",
    "QUIT\r\n",
  ]);
  const replies = codes(transcript);
  const rcptReplies = replies.slice(3, 3 + rcpts.length);
  assert.is(rcptReplies.filter((c) => c === 250).length, MAX_RECIPIENTS);
  assert.ok(rcptReplies.slice(MAX_RECIPIENTS).every((c) => c === 452));
  assert.equal(replies.slice(-3), [354, 250, 221]);
  assert.is(await pingCount(), before + 1 + MAX_RECIPIENTS);
});

test("a client leaving mid-DATA records nothing; pipelined commands record exactly their messages", async () => {
  const before = await pingCount();
  await converse(
    ["EHLO x\r\n", "MAIL FROM:<a@b.c>\r\n", `RCPT TO:<${uuid}@${DOMAIN}>\r\n`, "DATA\r\n", "Subject: cut\r\n\r\nhalf a messa"],
    { endAfterWrite: true },
  );
  // the marker: the pipelined messages below, sent after the hang-up, must be the only pings recorded
  const pipelined = ["EHLO x\r\n", ...mail(`${uuid}@${DOMAIN}`), "RSET\r\n", ...mail(`${uuid}@${DOMAIN}`, "second"), "QUIT\r\n"].join("");
  const transcript = await converse([pipelined]);
  assert.equal(codes(transcript), [220, 250, 250, 250, 354, 250, 250, 250, 250, 354, 250, 221]);
  assert.is(await pingCount(), before + 2);
});

test("after all of it the listener takes a real mail, and reported no unexpected fault", async () => {
  const before = await pingCount();
  const transport = createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({
      envelope: { from: "cron@example.com", to: [`${uuid}@${DOMAIN}`] },
      from: "cron@example.com",
      to: `${uuid}@${DOMAIN}`,
      subject: "ok",
      text: "ok",
    });
    assert.match(String(info.response), /^250 /);
  } finally {
    transport.close();
  }
  assert.is(await pingCount(), before + 1);
  // socket resets from our own abrupt clients are expected faults; nothing else may have been reported
  const unexpected = errors.filter(
    (e) => !/ECONNRESET|EPIPE|closed before the message was received/i.test(String((e as Error)?.message ?? e)),
  );
  assert.equal(unexpected.map(String), []);
});

test.run();
