// ntfy access tokens (CONTRACT "Notifications, fourth round"): a value's "token" is sent as
// `Authorization: Bearer <token>` to the ntfy server, as the reference's transport sends it; none without one.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { channelInputOf } from "../../http/admin-input.ts";
import { serviceKindsOf } from "../../notify/kinds/service.ts";
import { channel } from "../helpers.ts";
import { httpReceiver } from "./receivers.ts";
import { closeOutboxes, delivererOf, DOWN_AT, entryOf, settingsAt } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);

const kinds = serviceKindsOf(settingsAt("http://127.0.0.1:9"));

function ntfyChannel(value: unknown) {
  const input = channelInputOf({ kind: "ntfy", name: "phone", value }, kinds);
  if (!input.ok) throw new Error(JSON.stringify(input.failure));
  return channel({ kind: "ntfy", value: input.value.value });
}

test("a token goes as a bearer token to the ntfy server; without one no Authorization header", async () => {
  const rx = await httpReceiver();
  try {
    const withToken = entryOf(ntfyChannel({ url: rx.url, topic: "ops", token: "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2" }), "down");
    const open = entryOf(ntfyChannel({ url: rx.url, topic: "public" }), "down");
    const { outbox, deliverer } = await delivererOf([withToken, open], rx.url);
    await deliverer.deliverDue(DOWN_AT);
    assert.equal(outbox.all(), []);
    const byTopic = Object.fromEntries(rx.requests.map((r) => [(JSON.parse(r.body) as { topic: string }).topic, r]));
    assert.equal(
      [byTopic.ops?.method, byTopic.ops?.path, byTopic.ops?.headers.authorization],
      ["POST", "/", "Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"],
    );
    assert.is(byTopic.public?.headers.authorization, undefined);
  } finally {
    await rx.close();
  }
});

test("a token that is not a string, too long or with spaces is refused naming value.token", () => {
  for (const token of [5, "x".repeat(101), "tk_a b", "tk_\n"]) {
    const input = channelInputOf({ kind: "ntfy", value: { url: "https://ntfy.sh", topic: "t", token } }, kinds);
    assert.equal(input.ok ? null : input.failure.code === "invalid" && input.failure.field, "value.token", JSON.stringify(token));
  }
});

test.run();
