// What the cluster reads of a stream's ends is what its leader holds, never what stream info says (a
// replica that has lost sight of its leader answers info with its own state): a takeover's strict read of
// a partition's log, and the intake stream's last position. One real nats-server; the astray replica is
// played by rewriting the info answers on the connection.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import { intakeEndOf, IntakePublisher, openIntakeStream } from "../../cluster/intake-stream.ts";
import { JetStreamLog, TruncatedError } from "../../cluster/jetstream-log.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { pingCommand, T0, withNatsServer } from "./held-appends.ts";

const text = (s: string) => new TextEncoder().encode(s);

async function strictRead(log: JetStreamLog, from: number): Promise<unknown> {
  const read: string[] = [];
  try {
    for await (const { position, bytes } of log.readFrom(from, { strict: true }))
      read.push(`${position}:${new TextDecoder().decode(bytes)}`);
    return read;
  } catch (error) {
    return error;
  }
}

/** `nc`, but every stream info answer's state is changed by `change`, as a replica behind or astray would answer. */
function infoAnswered(nc: NatsConnection, change: (state: { first_seq: number; last_seq: number }) => void): NatsConnection {
  return new Proxy(nc, {
    get(target, property) {
      if (property === "request") {
        return async (...args: Parameters<NatsConnection["request"]>) => {
          const answer = await target.request(...args);
          if (!args[0].startsWith("$JS.API.STREAM.INFO.")) return answer;
          const info = answer.json<{ state: { first_seq: number; last_seq: number } }>();
          change(info.state);
          return { ...answer, data: text(JSON.stringify(info)), json: () => info, string: () => JSON.stringify(info) };
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

test("a strict read goes by the records the leader holds: all of them whatever stream info says, refused once some are let go", async () => {
  await withNatsServer("a strict read of a partition's log", async (connect) => {
    const nc = await connect();
    const writer = await JetStreamLog.open({ connection: nc, partition: 4, replicas: 1 });
    assert.is(await writer.fence(), 1);
    assert.equal(await writer.append([text("a"), text("b"), text("c")]), [2, 3, 4]);

    // info says the log holds 4 onwards; the leader holds 1 onwards: every record from 2 is read
    const astray = await JetStreamLog.open({
      connection: infoAnswered(nc, (state) => {
        state.first_seq = 4;
      }),
      partition: 4,
      replicas: 1,
    });
    assert.equal(await strictRead(astray, 2), ["2:a", "3:b", "4:c"]);

    // the records below 4 let go: a strict read from 2 is refused, from 4 reads on
    await writer.truncateBelow(4);
    const reader = await JetStreamLog.open({ connection: nc, partition: 4, replicas: 1 });
    assert.instance(await strictRead(reader, 2), TruncatedError);
    assert.equal(await strictRead(reader, 4), ["4:c"]);
  });
});

test("the intake stream's last position is the leader's, whatever stream info says", async () => {
  await withNatsServer("the intake stream's end", async (connect) => {
    const nc = await connect();
    await openIntakeStream(nc, 1);
    const behind = infoAnswered(nc, (state) => {
      state.last_seq = 0;
    });
    assert.is(await intakeEndOf(await managerOf(behind)), 0, "nothing stored yet");
    const publisher = new IntakePublisher({ connection: nc, connected: () => true });
    for (let i = 0; i < 3; i++) await publisher.send(0, "p", pingCommand("u", T0 + i));
    assert.is(publisher.storedUpTo, 3, "three messages, one a ping");
    assert.is(await intakeEndOf(await managerOf(behind)), 3);
  });
});

test.run();
