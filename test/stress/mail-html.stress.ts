// A hostile HTML mail must not stall pings: while the real server (`node dist/app/main.js` with its SMTP
// listener) takes a 300 kB HTML body full of unclosed tags, pings to another check keep answering, the
// slowest of them within a few times the pings' own 99th percentile without the mail (measured before and
// after it, in the same test, whatever the machine's load). A stalled event loop holds a ping for the whole
// parse, seconds with a naive regex. The absolute figures are printed (bench/ keeps such targets).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createTransport } from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { freshRequest } from "./load.ts";

const TOKEN = "mail-html-stress-admin-token-0123456789";
const DOMAIN = "hc.test";
const HOSTILE_BYTES = 300 * 1024;
/** How many times the pings' 99th percentile without the mail the slowest ping during it may take. */
const STALL_FACTOR = 5;

const dir = tempDir();
let server: RealServer;

test.after(async () => {
  if (server) await stopServer(server);
  dir.remove();
});

/** Returns HTML whose keyword comes first, then tags that never close (each rescanned to the end by a naive regex). */
function hostileHtml(bytes: number): string {
  const head = "<p>backup PASSED</p>";
  const unit = '<a href="x" <b '; // tags that never close
  return head + unit.repeat(Math.ceil((bytes - head.length) / unit.length));
}

/** The latencies (ms) of `count` pings in sequence on fresh connections, each answered 200. */
async function pingLatencies(url: string, uuid: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const outcome = await freshRequest(url, "GET", `/ping/${uuid}`);
    latencies.push(performance.now() - started);
    assert.ok("status" in outcome && outcome.status === 200, JSON.stringify(outcome));
  }
  return latencies;
}
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];

test(`pings keep answering while a ${HOSTILE_BYTES / 1024} kB hostile HTML mail is processed, no slower than ${STALL_FACTOR}x their p99 without it`, async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SMTP_PORT: "0", EMAIL_DOMAIN: DOMAIN } });
  const smtpPort = Number(/smtp listening on \S+:(\d+)/.exec(server.output())?.[1]);
  assert.ok(smtpPort > 0, server.output());
  const project = await createProject(server, TOKEN, { name: "mail-html" });
  const create = (body: Record<string, unknown>) =>
    ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body }));
  // the mail's check only counts a success when the keyword was found in the HTML part's text
  const mailCheck = await create({ name: "by mail", filter_body: true, success_kw: "PASSED", filter_default_fail: true });
  const pingCheck = await create({ name: "by http" });

  // the message is encoded before the pings start: encoding 300 kB in this process would delay the pinger here
  const html = hostileHtml(HOSTILE_BYTES);
  const to = `${mailCheck.uuid}@${DOMAIN}`;
  const raw = await new MailComposer({ from: "cron@example.com", to, subject: "nightly", html }).compile().build();
  const before = await pingLatencies(server.url, pingCheck.uuid, 100);

  const latencies: number[] = [];
  let mailDone = false;
  const pinger = (async () => {
    while (!mailDone) {
      const started = performance.now();
      const outcome = await freshRequest(server.url, "GET", `/ping/${pingCheck.uuid}`);
      latencies.push(performance.now() - started);
      assert.ok("status" in outcome && outcome.status === 200, JSON.stringify(outcome));
    }
  })();

  const transport = createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, ignoreTLS: true });
  const sentAt = performance.now();
  try {
    const info = await transport.sendMail({ envelope: { from: "cron@example.com", to: [to] }, raw });
    assert.equal(info.accepted, [to]);
  } finally {
    mailDone = true;
    transport.close();
  }
  const mailMs = performance.now() - sentAt;
  await pinger;
  const after = await pingLatencies(server.url, pingCheck.uuid, 100);
  const reference = Math.max(p99(before), p99(after));

  const mailPings = await ok<{ pings: { type: string; scheme: string }[] }>(
    call(server.url, "GET", `/api/v3/checks/${mailCheck.uuid}/pings/`, { key: project.api_key }),
  );
  assert.equal(
    mailPings.pings.map((p) => [p.type, p.scheme]),
    [["success", "email"]],
    "the keyword was found in the HTML text",
  );
  const sorted = [...latencies].sort((a, b) => a - b);
  const worst = sorted[sorted.length - 1];
  console.log(
    `mail of ${html.length} bytes of HTML answered in ${mailMs.toFixed(0)} ms; ${latencies.length} pings meanwhile, ` +
      `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, worst ${worst.toFixed(1)} ms; without the mail p99 ${reference.toFixed(1)} ms`,
  );
  assert.ok(latencies.length >= 1, "pings were sent while the mail was processed");
  assert.ok(
    worst <= STALL_FACTOR * reference,
    `worst ping latency ${worst.toFixed(1)} ms against ${reference.toFixed(1)} ms without the mail`,
  );
  assert.equal(troubleIn(server.output()), []);
});

test.run();
