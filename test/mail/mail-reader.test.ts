// The worker-thread mail reader: parsed content, a digest that tells a retry (same bytes) from another
// message, refusals for what can't be read, and a fresh worker after a message over the time limit.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import { startMailReader, UnreadableMail } from "../../mail/mail-reader.ts";

const bytes = (text: string) => new TextEncoder().encode(text.replaceAll("\n", "\r\n"));

test("a message is parsed on the worker; its digest is the SHA-256 of its bytes", async () => {
  const reader = startMailReader();
  try {
    const raw = bytes("Subject: Backup\nContent-Type: text/html\n\n<p>Job <b>PASS</b>ED &hearts;</p>\n");
    const read = await reader.read(raw);
    assert.equal(read.content, { subject: "Backup", text: "Job PASSED \u2665" });
    assert.is(read.digest, createHash("sha256").update(raw).digest("base64url"));
    assert.is(
      (await reader.read(bytes("Subject: Backup\n\nother\n"))).content.text,
      "other\n",
      "the worker serves one message after another",
    );
  } finally {
    await reader.close();
  }
});

test("messages read at once are each answered with their own content", async () => {
  const reader = startMailReader();
  try {
    const subjects = Array.from({ length: 20 }, (_, i) => `job ${i}`);
    const read = await Promise.all(subjects.map((subject) => reader.read(bytes(`Subject: ${subject}\n\nok\n`))));
    assert.equal(
      read.map((r) => r.content.subject),
      subjects,
    );
  } finally {
    await reader.close();
  }
});

test("a message over the time limit is refused as unreadable, and the next one gets a fresh worker", async () => {
  const reader = startMailReader({ timeoutMs: 1 }); // less than a worker needs to start
  try {
    for (let i = 0; i < 2; i++) {
      const error = await reader.read(bytes("Subject: s\n\nbody\n")).then(
        () => null,
        (e: unknown) => e,
      );
      assert.instance(error, UnreadableMail);
      assert.match(String(error), /not read within 1 ms/);
    }
  } finally {
    await reader.close();
  }
});

test("closing refuses what is queued and what comes after", async () => {
  const reader = startMailReader();
  const pending = [reader.read(bytes("Subject: a\n\nx\n")), reader.read(bytes("Subject: b\n\ny\n"))].map((p) =>
    p.then(
      () => "read",
      (e: Error) => e.message,
    ),
  );
  await reader.close();
  assert.equal(await Promise.all(pending), ["the mail reader is closed", "the mail reader is closed"]);
  assert.is(
    await reader.read(bytes("Subject: c\n\nz\n")).then(
      () => "read",
      (e: Error) => e.message,
    ),
    "the mail reader is closed",
  );
});

test.run();
