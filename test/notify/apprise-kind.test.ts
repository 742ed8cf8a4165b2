// The apprise kind through Debian's real `apprise` command: its json:// target posts to a local receiver
// for a down and an up; a refused post is the command's failure, retried; only with APPRISE_ENABLED=true.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { haveProgram } from "../ops/extras.ts";
import { parseServiceValue } from "../../notify/kinds/service.ts";
import { httpReceiver } from "./receivers.ts";
import { closeOutboxes, delivererOf, DOWN_AT, entryOf, LINK, REASON, serviceChannel, settingsAt, UP_AT } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);
const HAVE = haveProgram("apprise", "the apprise notification kind");

test("a down and an up reach a json:// target through the apprise command: title, body with the link, type", async () => {
  if (!HAVE) return;
  const rx = await httpReceiver();
  try {
    const ch = serviceChannel("apprise", { url: `json://127.0.0.1:${rx.port}/apprise-hook` });
    const down = entryOf(ch, "down"),
      up = entryOf(ch, "up");
    const { outbox, deliverer } = await delivererOf([down, up], rx.url, { timeoutMs: 20_000 });
    await deliverer.deliverDue(UP_AT);
    assert.equal(outbox.all(), []);
    const posted = rx.requests.map((r) => [r.method, r.path, JSON.parse(r.body)]);
    assert.equal(
      posted.map(([method, path, body]) => [method, path, body.title, body.type]),
      [
        ["POST", "/apprise-hook", "Backup is DOWN", "failure"],
        ["POST", "/apprise-hook", "Backup is UP", "success"],
      ],
    );
    const message = posted[0][2].message as string;
    assert.ok(message.startsWith(`Reason: ${REASON}.\nProject: Ops\n`) && message.endsWith(`\n${LINK}`), message);
  } finally {
    await rx.close();
  }
});

test("a target that refuses makes the command fail: the entry is retried with the exit status stored", async () => {
  if (!HAVE) return;
  const rx = await httpReceiver(() => ({ status: 500 }));
  try {
    const entry = entryOf(serviceChannel("apprise", { url: `json://127.0.0.1:${rx.port}/x` }), "down");
    const { outbox, deliverer } = await delivererOf([entry], rx.url, { timeoutMs: 20_000, baseBackoffMs: 1_000 });
    await deliverer.deliverDue(DOWN_AT);
    assert.is(rx.requests.length, 1);
    assert.equal([outbox.get(entry.id)?.lastError, outbox.get(entry.id)?.nextAttemptAt], ["Command returned exit code 1", DOWN_AT + 1_000]);
  } finally {
    await rx.close();
  }
});

test("values: refused without APPRISE_ENABLED; a value that is not an Apprise URL names its field", () => {
  const off = parseServiceValue("apprise", { url: "json://example.com/x" });
  assert.equal(off.ok ? null : off.failure, {
    code: "invalid",
    field: "kind",
    reason: "apprise notifications are off on this server (APPRISE_ENABLED)",
  });
  const on = parseServiceValue("apprise", "--config=/etc/passwd", settingsAt("http://127.0.0.1"));
  assert.equal(on.ok ? null : on.failure, { code: "invalid", field: "value", reason: "must be an Apprise URL (scheme://...)" });
});

test.run();
