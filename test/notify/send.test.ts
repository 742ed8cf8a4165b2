import { test } from "uvu";
import * as assert from "uvu/assert";
import { isPrivateAddress } from "../../notify/private-ip.ts";
import type { HttpRequest } from "../../notify/delivery.ts";
import type { HttpOptions } from "../../notify/send.ts";
import { sendEmail, sendHttp } from "../../notify/send.ts";
import { httpReceiver, smtpReceiver } from "./receivers.ts";
import { closedPort } from "../helpers.ts";

const ALLOW: HttpOptions = { timeoutMs: 2_000, maxResponseBytes: 1024, allowPrivateIps: true };
const DENY: HttpOptions = { ...ALLOW, allowPrivateIps: false };
const PRIVATE = "Connections to private IP addresses are not allowed";

function post(url: string, body: string | null = "hello", headers: Record<string, string> = {}): HttpRequest {
  return { kind: "http", method: "POST", url, headers, body };
}

test("200, 201, 202 and 204 succeed; the body, headers and default User-Agent arrive", async () => {
  const statuses = [200, 201, 202, 204];
  const rx = await httpReceiver((_req, i) => ({ status: statuses[i], body: i === 0 ? '{"room_id": "!a:b"}' : "" }));
  try {
    for (const [i, status] of statuses.entries()) {
      // the answer's body is kept (a kind's setup call reads it)
      assert.equal(await sendHttp(post(`${rx.url}/p?q=1`, "héllo", { "X-A": "b" }), ALLOW), {
        ok: true,
        status,
        responseBody: i === 0 ? '{"room_id": "!a:b"}' : "",
      });
    }
    const first = rx.requests[0];
    assert.equal(
      [first.method, first.path, first.body, first.headers["x-a"], first.headers["user-agent"], first.headers["content-length"]],
      ["POST", "/p?q=1", "héllo", "b", "healthchecks.io", "6"],
    );
  } finally {
    await rx.close();
  }
});

test("a caller's User-Agent wins over the default", async () => {
  const rx = await httpReceiver();
  try {
    await sendHttp(post(rx.url, null, { "user-agent": "mine" }), ALLOW);
    assert.is(rx.requests[0].headers["user-agent"], "mine");
  } finally {
    await rx.close();
  }
});

test('any other status fails with "Received status code N" and keeps the answer\'s start', async () => {
  const rx = await httpReceiver(() => ({ status: 400, body: "invalid_token" + "x".repeat(5000) }));
  try {
    const result = await sendHttp(post(rx.url), ALLOW);
    if (result.ok) throw new Error("expected a failure");
    assert.equal(
      [result.error, result.permanent, result.status, result.responseBody.length],
      ["Received status code 400", false, 400, 1024],
    );
    assert.ok(result.responseBody.startsWith("invalid_token"));
  } finally {
    await rx.close();
  }
});

test("redirects: a POST answered 302 continues as GET, 307 keeps method and body; the 4th redirect fails", async () => {
  const rx = await httpReceiver((req) => {
    const m = /^\/r(\d+)-(\d+)$/.exec(req.path);
    if (m === null) return { status: 200 };
    const [code, left] = [Number(m[1]), Number(m[2])];
    return { status: code, headers: { Location: left > 1 ? `/r${code}-${left - 1}` : "/done" } };
  });
  try {
    assert.equal(await sendHttp(post(`${rx.url}/r302-1`, "x", { "Content-Type": "text/plain" }), ALLOW), {
      ok: true,
      status: 200,
      responseBody: "",
    });
    assert.equal(
      [rx.requests[1].method, rx.requests[1].path, rx.requests[1].body, rx.requests[1].headers["content-type"]],
      ["GET", "/done", "", undefined],
    );
    assert.equal(await sendHttp(post(`${rx.url}/r307-3`, "kept"), ALLOW), { ok: true, status: 200, responseBody: "" });
    assert.equal(
      rx.requests.slice(2).map((r) => [r.method, r.body]),
      [
        ["POST", "kept"],
        ["POST", "kept"],
        ["POST", "kept"],
        ["POST", "kept"],
      ],
    );
    const tooMany = await sendHttp(post(`${rx.url}/r301-4`), ALLOW);
    assert.equal([tooMany.ok, !tooMany.ok && tooMany.error], [false, "Too many redirects"]);
  } finally {
    await rx.close();
  }
});

test("private addresses are refused unless allowed, by literal and by name, before any request", async () => {
  const rx = await httpReceiver();
  try {
    for (const url of [rx.url, `http://localhost:${rx.port}/`]) {
      const result = await sendHttp(post(url), DENY);
      assert.equal([result.ok, !result.ok && result.error], [false, PRIVATE], url);
    }
    assert.is(rx.requests.length, 0);
  } finally {
    await rx.close();
  }
});

test("a redirect to a refused address is refused: every hop is checked", async () => {
  const rx = await httpReceiver(() => ({ status: 302, headers: { Location: `http://127.0.0.2:1/secret` } }));
  try {
    // 127.0.0.1 stands in for a public address; every other private address is refused as usual
    const opts: HttpOptions = { ...DENY, refuseAddress: (a) => a !== "127.0.0.1" && isPrivateAddress(a) };
    const result = await sendHttp(post(rx.url), opts);
    assert.equal([result.ok, !result.ok && result.error], [false, PRIVATE]);
    assert.is(rx.requests.length, 1);
  } finally {
    await rx.close();
  }
});

test('a receiver that never answers times out with "Connection timed out"', async () => {
  const rx = await httpReceiver(() => "hang");
  try {
    const started = performance.now();
    const result = await sendHttp(post(rx.url), { ...ALLOW, timeoutMs: 300 });
    const elapsedMs = performance.now() - started;
    assert.equal([result.ok, !result.ok && result.error], [false, "Connection timed out"]);
    // a lower bound only (it cannot flake on a slow machine): the error came from the timeout, not at once
    assert.ok(elapsedMs >= 250, `gave up after ${elapsedMs} ms, before its 300 ms timeout`);
  } finally {
    await rx.close();
  }
});

test("socket errors use the reference's wording; a non-HTTP URL is a permanent error", async () => {
  const refused = await sendHttp(post(`http://127.0.0.1:${await closedPort()}/`), ALLOW);
  assert.equal([refused.ok, !refused.ok && refused.error, !refused.ok && refused.permanent], [false, "Connection failed", false]);
  const unresolved = await sendHttp(post("http://no-such-host.invalid/"), ALLOW);
  assert.equal([unresolved.ok, !unresolved.ok && unresolved.error], [false, "Could not resolve host"]);
  const ftp = await sendHttp(post("ftp://example.com/x"), ALLOW);
  assert.equal([ftp.ok, !ftp.ok && ftp.permanent], [false, true]);
  const invalid = await sendHttp(post("not a url"), ALLOW);
  assert.equal([invalid.ok, !invalid.ok && invalid.error, !invalid.ok && invalid.permanent], [false, "Invalid URL", true]);
});

test("sendEmail delivers a multipart message through SMTP_URL; no SMTP_URL is a clear error", async () => {
  const smtp = await smtpReceiver();
  try {
    const message = { kind: "email" as const, to: "ops@example.com", subject: "DOWN | Café", text: "plain ü", html: "<p>html ü</p>" };
    assert.equal(await sendEmail(message, { smtpUrl: smtp.url, from: "hcd@alerts.example", timeoutMs: 2_000 }), { ok: true, status: null });
    const mail = smtp.mails[0];
    assert.equal(
      [mail.subject, mail.text, mail.html, mail.from?.text, mail.to && "text" in mail.to ? mail.to.text : ""],
      ["DOWN | Café", "plain ü", "<p>html ü</p>", "hcd@alerts.example", "ops@example.com"],
    );
    assert.match(mail.messageId ?? "", /@alerts\.example>$/);
    const none = await sendEmail(message, { smtpUrl: undefined, from: "hcd@alerts.example", timeoutMs: 2_000 });
    assert.equal([none.ok, !none.ok && none.error], [false, "Email is not configured: SMTP_URL is not set"]);
    const dead = await sendEmail(message, { smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, from: "a@b.c", timeoutMs: 2_000 });
    assert.is(dead.ok, false);
  } finally {
    await smtp.close();
  }
});

test.run();
