// A lease renewal whose PubAck is lost (the client times out) although the write landed: the owner keeps
// its partition at the new revision, instead of losing it and gaining it again, which is a whole takeover
// of the partition (and was the moment a takeover met an append still in flight). One real nats-server.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TimeoutError } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { Ownership } from "../../cluster/ownership.ts";
import { answeredLate, withNatsServer } from "./held-appends.ts";

const LEASE_SUBJECT = "$KV.hcd-owner-0.owner";

/** `nc`, but the next lease write after loseNextAnswer() lands and is then answered with a timeout. */
function losingAnswers(nc: NatsConnection): { connection: NatsConnection; loseNextAnswer(): void } {
  let lose = false;
  const connection = answeredLate(nc, async (subject) => {
    if (lose && subject === LEASE_SUBJECT) {
      lose = false;
      throw new TimeoutError();
    }
  });
  return {
    connection,
    loseNextAnswer: () => {
      lose = true;
    },
  };
}

test("a renewal that landed although its answer was lost keeps the partition, at the write's revision", async () => {
  await withNatsServer("a renewal whose answer was lost", async (connect) => {
    const nc = await connect();
    const lossy = losingAnswers(nc);
    const events: string[] = [];
    const ownership = await Ownership.open({
      connection: lossy.connection,
      node: "a",
      partitionCount: 1,
      replicas: 1,
      leaseMs: 60_000,
      renewEveryMs: 30_000,
      onGained: (partition, revision) => events.push(`gained ${partition} at ${revision}`),
      onLost: (partition) => events.push(`lost ${partition}`),
    });
    const leaseRevision = async () =>
      (await (await managerOf(nc)).streams.getMessage("KV_hcd-owner-0", { last_by_subj: LEASE_SUBJECT }))?.seq ?? 0;
    const claimed = await ownership.round();
    assert.equal(
      claimed.done.map((s) => s.kind),
      ["claim"],
    );
    const claimedAt = await leaseRevision();
    lossy.loseNextAnswer();
    const renewal = await ownership.round();
    assert.equal(
      renewal.errors.map((e) => e.step.kind),
      ["renew"],
      "the renewal's answer was lost",
    );
    assert.ok((await leaseRevision()) > claimedAt, "the renewal landed");
    const next = await ownership.round();
    assert.equal(
      next.done.map((s) => s.kind),
      ["renew"],
      "renewed at the revision the lost answer would have given",
    );
    assert.equal(events, [`gained 0 at ${claimedAt}`], "never lost, never gained again");
    assert.is(await ownership.confirm(0), await leaseRevision(), "held at the revision of its last renewal");
    await ownership.stop();
  });
});

test.run();
