// An outbox entry as the notification stream carries it: msgpack opening with a record id; a ping body
// comes back as the plain Uint8Array it was, and bytes of another kind are refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Packr } from "msgpackr";
import { decodeEntry, encodeEntry } from "../../cluster/notification-stream.ts";
import { check, ping } from "../helpers.ts";
import { outboxEntry } from "../notify/memory-outbox.ts";

test("an entry with a whole check, a last ping and its body decodes to what was encoded", () => {
  const entry = outboxEntry({
    check: check({ name: "Nightly ü", tags: "a b", status: "down" }),
    lastPing: ping({ n: 7 }),
    attempts: 2,
    nextAttemptAt: 40_000,
    extras: { lastPingBody: new Uint8Array([0, 1, 2, 255]), projectName: "Ops", downSinceAt: 1_000 },
  });
  const decoded = decodeEntry(encodeEntry(entry));
  assert.equal(decoded, entry);
  assert.is(Object.getPrototypeOf(decoded.lastPingBody), Uint8Array.prototype);
});

test("an entry without a body keeps null", () => {
  const entry = outboxEntry();
  assert.is(decodeEntry(encodeEntry(entry)).lastPingBody, null);
});

test("bytes of another kind are refused", () => {
  const packr = new Packr();
  assert.throws(() => decodeEntry(packr.pack([2, outboxEntry()])), /not an outbox entry \(record id 2\)/);
  assert.throws(() => decodeEntry(packr.pack({ id: "x" })), /not an outbox entry \(record id object\)/);
});

test.run();
