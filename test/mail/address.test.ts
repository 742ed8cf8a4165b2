import { test } from "uvu";
import * as assert from "uvu/assert";
import { emailUserAgent, parseRecipient } from "../../mail/address.ts";
import type { Recipient } from "../../mail/address.ts";

const UUID = "0f3c8b5e-2a4d-4e6f-9a1b-3c5d7e9f1a2b";
const KEY = "abcdefghijklmnopqrstuv";

const rows: [name: string, address: string, want: Recipient][] = [
  ["a lower-case uuid names a check", `${UUID}@hc.test`, { kind: "uuid", uuid: UUID }],
  ["an upper-case uuid is normalised to lower case", `${UUID.toUpperCase()}@hc.test`, { kind: "uuid", uuid: UUID }],
  ["the domain compares case-insensitively", `${UUID}@HC.Test`, { kind: "uuid", uuid: UUID }],
  ["ping key + slug names a check by slug", `${KEY}+nightly-backup_2@hc.test`, { kind: "slug", pingKey: KEY, slug: "nightly-backup_2" }],
  ["a ping key keeps its case", `AbC-_9+db@hc.test`, { kind: "slug", pingKey: "AbC-_9", slug: "db" }],
  ["another domain is refused", `${UUID}@example.com`, { kind: "wrong_domain" }],
  ["a sub-domain is another domain", `${UUID}@mail.hc.test`, { kind: "wrong_domain" }],
  ["no @ at all is refused as the wrong domain", UUID, { kind: "wrong_domain" }],
  ["the first @ splits mailbox and domain", `${UUID}@x@hc.test`, { kind: "wrong_domain" }],
  ["an upper-case slug is not a slug", `${KEY}+Nightly@hc.test`, { kind: "invalid_mailbox" }],
  ["an empty slug is an invalid mailbox", `${KEY}+@hc.test`, { kind: "invalid_mailbox" }],
  ["two plus signs are an invalid mailbox", `${KEY}+a+b@hc.test`, { kind: "invalid_mailbox" }],
  ["a bare word is an invalid mailbox", `postmaster@hc.test`, { kind: "invalid_mailbox" }],
  ["a uuid without dashes is an invalid mailbox", `${UUID.replaceAll("-", "")}@hc.test`, { kind: "invalid_mailbox" }],
  ["an empty mailbox is invalid", `@hc.test`, { kind: "invalid_mailbox" }],
];
for (const [name, address, want] of rows) {
  test(name, () => assert.equal(parseRecipient(address, "hc.test"), want));
}

test("the user agent names the envelope sender, cut to the limit", () => {
  assert.is(emailUserAgent("cron@example.com", 200), "Email from cron@example.com");
  assert.is(emailUserAgent("", 200), "Email from ");
  assert.is(emailUserAgent("x".repeat(300), 200).length, 200);
});

test.run();
