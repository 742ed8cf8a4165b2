import { test } from "uvu";
import * as assert from "uvu/assert";
import { readMail } from "../../mail/message.ts";

const bytes = (text: string) => new TextEncoder().encode(text.replaceAll("\n", "\r\n"));

test("a plain message gives its subject and body", async () => {
  const raw = bytes("From: a@b.c\nSubject: Backup done\n\nAll good.\n");
  assert.equal(await readMail(raw), { subject: "Backup done", text: "All good.\n" });
});

test("an encoded subject and a quoted-printable body are decoded", async () => {
  const raw = bytes(
    [
      "Subject: =?UTF-8?B?U2F1dmVnYXJkZSByw6l1c3NpZQ==?=",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "Termin=C3=A9 sans erreur",
      "",
    ].join("\n"),
  );
  assert.equal(await readMail(raw), { subject: "Sauvegarde réussie", text: "Terminé sans erreur\n" });
});

test("an HTML-only message is searched as text", async () => {
  const raw = bytes("Subject: s\nContent-Type: text/html\n\n<p>Job <b>FAIL</b>ED</p><style>.SUCCESS{}</style>\n");
  assert.equal(await readMail(raw), { subject: "s", text: "Job FAILED" });
});

test("plain and HTML alternatives are both searched, plain first, as the reference joins them", async () => {
  const raw = bytes(
    [
      "Subject: s",
      'Content-Type: multipart/alternative; boundary="marker"',
      "",
      "--marker",
      "Content-Type: text/plain",
      "",
      "plain words",
      "--marker",
      "Content-Type: text/html",
      "",
      "<p>html&nbsp;words</p>",
      "--marker--",
      "",
    ].join("\n"),
  );
  assert.equal(await readMail(raw), { subject: "s", text: "plain words\nhtml words" });
});

test("a message without a blank line reads as headers only", async () => {
  assert.equal(await readMail(bytes("just a line\n")), { subject: "", text: "" });
});

test("garbage bytes don't throw", async () => {
  const raw = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
  const mail = await readMail(raw);
  assert.type(mail.text, "string");
});

test("a message past the parser's limits is rejected", async () => {
  const parts = "--b\n\nx\n".repeat(1001); // more than 1000 MIME parts
  const raw = bytes(`Content-Type: multipart/mixed; boundary="b"\n\n${parts}--b--\n`);
  await readMail(raw).then(
    () => assert.unreachable("parsed"),
    (error: Error) => assert.match(error.message, /child nodes/),
  );
});

test.run();
