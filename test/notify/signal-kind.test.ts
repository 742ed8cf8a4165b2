// The signal kind against a small JSON-RPC server on a UNIX socket that answers as signal-cli's daemon
// does: the reference's `send` request (recipient, message, textStyle), replies with other ids skipped,
// and its errors read as the reference reads them (an unregistered recipient given up, a rate limit's
// captcha and any other error code retried, a reply that is not JSON, a socket that is not there).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { join } from "node:path";
import { hasGivenUp } from "../../engine/changes.ts";
import { parseServiceValue } from "../../notify/kinds/service.ts";
import { tempDir } from "../helpers.ts";
import { closeOutboxes, delivererOf, DOWN_AT, entryOf, REASON, serviceChannel, settingsAt, UP_AT } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);
const dir = tempDir("hcd-signal-");
test.after(() => dir.remove());

type Request = { jsonrpc: string; method: string; params: { recipient: string[]; message: string; textStyle: string[] }; id: string };
type Reply = (request: Request) => string[]; // the lines to answer with

const success: Reply = (request) => [
  JSON.stringify({ jsonrpc: "2.0", method: "receive", params: { envelope: {} } }), // a notification: no id, skipped
  JSON.stringify({ jsonrpc: "2.0", result: {}, id: "another call" }), // another call's reply: skipped
  JSON.stringify({
    jsonrpc: "2.0",
    result: { timestamp: 1, results: [{ recipientAddress: { number: request.params.recipient[0] }, type: "SUCCESS" }] },
    id: request.id,
  }),
];
const failure =
  (type: string, extra: Record<string, unknown> = {}): Reply =>
  (request) => [
    JSON.stringify({
      jsonrpc: "2.0",
      error: {
        code: -1,
        message: "Failed to send message",
        data: { response: { results: [{ recipientAddress: { number: "+15551234567" }, type, ...extra }] } },
      },
      id: request.id,
    }),
  ];

/** A stand-in signal-cli daemon on a UNIX socket: each connection's request line is kept and answered by `reply`. */
async function daemon(reply: Reply): Promise<{ path: string; requests: Request[]; close(): Promise<void> }> {
  const path = join(dir.path, `signal-${Math.random().toString(36).slice(2)}.sock`);
  const requests: Request[] = [];
  const server: Server = createServer((socket: Socket) => {
    let buffered = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf("\n");
      if (newline < 0) return;
      const request = JSON.parse(buffered.slice(0, newline)) as Request;
      requests.push(request);
      socket.end(
        reply(request)
          .map((line) => `${line}\n`)
          .join(""),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function signalChannel(value: unknown) {
  return serviceChannel("signal", value);
}

async function deliver(path: string, value: unknown, direction: "down" | "up" = "down") {
  const entry = entryOf(signalChannel(value), direction);
  const { outbox, deliverer } = await delivererOf([entry], "http://127.0.0.1:9", {
    services: { ...settingsAt("http://127.0.0.1:9"), signalCliSocket: path },
    baseBackoffMs: 1_000,
  });
  await deliverer.deliverDue(direction === "down" ? DOWN_AT : UP_AT);
  return outbox.get(entry.id);
}

test("a down is the reference's JSON-RPC send: recipient, plain text with bold and monospace ranges; other replies are skipped", async () => {
  const d = await daemon(success);
  try {
    assert.is(await deliver(d.path, { value: "+1 555-123-4567", up: true, down: true }), null, "delivered, gone from the outbox");
    const [request] = d.requests;
    assert.equal([request.jsonrpc, request.method, request.params.recipient], ["2.0", "send", ["+15551234567"]]);
    const text = `The check Backup is DOWN (${REASON}).\n\nProject: Ops\nPeriod: 1 day\nTotal Pings: 7\nLast Ping: Success, 5 minutes ago`;
    assert.is(request.params.message, text);
    const styled = request.params.textStyle.map((style) => {
      const [start, length, kind] = style.split(":");
      return `${kind}:${[...text].slice(Number(start), Number(start) + Number(length)).join("")}`;
    });
    assert.equal(styled, ["BOLD:Backup", "BOLD:DOWN", "BOLD:Project:", "BOLD:Period:", "BOLD:Total Pings:", "BOLD:Last Ping:"]);
  } finally {
    await d.close();
  }
});

test("an up says UP with the downtime; a username is sent as u:<name>; a direction switched off sends nothing", async () => {
  const d = await daemon(success);
  try {
    assert.is(await deliver(d.path, { value: "alice.01", up: true, down: false }, "up"), null);
    assert.is(await deliver(d.path, { value: "alice.01", up: true, down: false }, "down"), null, "nothing to send: done");
    assert.is(d.requests.length, 1);
    assert.equal(d.requests[0].params.recipient, ["u:alice.01"]);
    assert.match(d.requests[0].params.message, /^The check Backup is now UP\. The downtime lasted 1 hour, 0 minutes\.\n/);
  } finally {
    await d.close();
  }
});

test("signal-cli's errors: an unregistered recipient is given up, a rate limit's captcha and other codes are retried", async () => {
  const cases: [Reply, string, boolean][] = [
    [failure("UNREGISTERED_FAILURE"), "Recipient not found", true],
    [failure("RATE_LIMIT_FAILURE", { token: "fddc87d7-572a-4559-9081-b41e3bc25254" }), "CAPTCHA proof required", false],
    [
      (request) => [JSON.stringify({ jsonrpc: "2.0", error: { code: 123, foo: "foobar" }, id: request.id })],
      "signal-cli call failed (123)",
      false,
    ],
    [() => ["surprise"], "signal-cli call failed (unexpected response)", false],
  ];
  for (const [reply, error, givenUp] of cases) {
    const d = await daemon(reply);
    try {
      const stored = await deliver(d.path, "+15551234567");
      assert.equal([stored?.lastError, stored !== null && hasGivenUp(stored)], [error, givenUp], error);
      assert.is(d.requests.length, 1, `${error}: one request`);
    } finally {
      await d.close();
    }
  }
  const missing = await deliver(join(dir.path, "no-such.sock"), "+15551234567");
  assert.match(missing?.lastError ?? "", /^signal-cli call failed \(connect ENOENT /);
  assert.not.ok(missing !== null && hasGivenUp(missing), "a daemon not running is retried");
});

test("values: the reference's recipient rules, at least one direction, and offered only with SIGNAL_CLI_SOCKET", () => {
  const on = { ...settingsAt("http://x"), signalCliSocket: "/run/signal-cli/socket" };
  assert.equal(parseServiceValue("signal", "+15551234567", { ...settingsAt("http://x"), signalCliSocket: null }), {
    ok: false,
    failure: { code: "invalid", field: "kind", reason: "signal notifications are off on this server (SIGNAL_CLI_SOCKET is not set)" },
  });
  assert.equal(parseServiceValue("signal", { value: "+1 555 123", up: false }, on), {
    ok: true,
    value: { value: "+1555123", down: 1, up: 0 },
  });
  for (const [value, field] of [
    ["1555", "value.value"],
    ["+1234", "value.value"],
    ["ab.1", "value.value"],
    [{ value: "+15551234567", up: false, down: false }, "value.down"],
    [{ value: "+15551234567", up: "yes" }, "value.up"],
  ] as const) {
    const parsed = parseServiceValue("signal", value, on);
    assert.is(parsed.ok ? null : parsed.failure.code === "invalid" && parsed.failure.field, field, JSON.stringify(value));
  }
});

test.run();
