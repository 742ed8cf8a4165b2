// Requests over the connection's one reply subscription, on a real nats-server: answered, refused for want
// of responders, timed out (and the late answer dropped, the next request unharmed), a JetStream publish's
// PubAck and its refusal on the expected last sequence, and requests left waiting when the connection closes,
// each failing as the client's own request() does (nats-errors.ts tells them apart).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { headers } from "@nats-io/nats-core";
import type { Msg } from "@nats-io/nats-core";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { noResponders, timedOut, wrongLastSequence } from "../../cluster/nats-errors.ts";
import { replyInboxOf } from "../../cluster/reply-inbox.ts";
import { withNatsServer } from "./held-appends.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

test("answered, no responders, timed out (a late answer dropped), a PubAck and a refused publish, a closed connection", async () => {
  await withNatsServer("the reply inbox", async (connect) => {
    const server = await connect();
    const nc = await connect();
    const inbox = replyInboxOf(nc);
    assert.is(replyInboxOf(nc), inbox, "one per connection");
    server.subscribe("echo", {
      callback: (_, message) => {
        message.respond(bytes(`echo ${text(message.data)}`));
      },
    });
    let held: Msg | null = null;
    let markHeld = () => {};
    const heldOne = new Promise<void>((resolve) => {
      markHeld = resolve;
    });
    server.subscribe("slow", {
      callback: (_, message) => {
        held = message;
        markHeld();
      },
    });
    await server.flush();

    const answers = await Promise.all(["a", "b", "c"].map((t) => inbox.request("echo", bytes(t), { timeoutMs: 5_000 })));
    assert.equal(
      answers.map((m) => text(m.data)),
      ["echo a", "echo b", "echo c"],
    );

    const nobody = await errorOf(inbox.request("nobody.listens", bytes("x"), { timeoutMs: 5_000 }));
    assert.ok(noResponders(nobody), `no responders: ${String(nobody)}`);

    const slow = errorOf(inbox.request("slow", bytes("x"), { timeoutMs: 200 }));
    await heldOne;
    const late = await slow;
    assert.ok(timedOut(late), `timed out: ${String(late)}`);
    held!.respond(bytes("too late"));
    assert.is(
      text((await inbox.request("echo", bytes("after"), { timeoutMs: 5_000 })).data),
      "echo after",
      "the late answer went to no one",
    );

    const jsm = await managerOf(server);
    await jsm.streams.add({ name: "INBOX_TEST", subjects: ["inbox.test"] });
    const first = await inbox.publish("inbox.test", bytes("1"), { timeoutMs: 5_000 });
    assert.equal([first.stream, first.seq], ["INBOX_TEST", 1]);
    const expect = headers();
    expect.set("Nats-Expected-Last-Sequence", "5");
    const refused = await errorOf(inbox.publish("inbox.test", bytes("2"), { timeoutMs: 5_000, headers: expect }));
    assert.ok(wrongLastSequence(refused), `refused on the expected last sequence: ${String(refused)}`);

    const pending = errorOf(inbox.request("slow", bytes("y"), { timeoutMs: 60_000 }));
    await nc.close();
    assert.is(((await pending) as Error | null)?.name, "ClosedConnectionError");
  });
});

test.run();
