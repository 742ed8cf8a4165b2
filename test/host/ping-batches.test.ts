// The pings on their way to the shards (host/ping-batches.ts): what waits and what is in flight, by stamp,
// which is how far a shard's deadlines may be judged (ShardedPool.watermarkOf, cluster/ping-watermarks.ts).
// The shard is a stand-in whose answers the test releases.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { PingCommand, ShardPingResult } from "../../engine/commands.ts";
import type { Outcome } from "../../engine/outcome.ts";
import { ok } from "../../engine/outcome.ts";
import { PingBatches } from "../../host/ping-batches.ts";
import type { HostRequest, ShardHandle } from "../../host/shard-requests.ts";
import { pingCommand, T0 } from "../cluster/held-appends.ts";

/** A shard that answers each batch when the test says so. */
function heldShard() {
  const batches: { pings: readonly PingCommand[]; answer: () => void }[] = [];
  let arrived = () => {};
  const handle: ShardHandle = {
    apply: ((request: HostRequest) =>
      new Promise<Outcome<ShardPingResult>[]>((resolve) => {
        if (request.kind !== "pingBatch") throw new Error(`unexpected ${request.kind}`);
        const results: Outcome<ShardPingResult>[] = request.pings.map((p) =>
          ok({ checkUuid: "uuid" in p.target ? p.target.uuid : "", created: false } as ShardPingResult),
        );
        batches.push({ pings: request.pings, answer: () => resolve(results) });
        arrived();
      })) as unknown as ShardHandle["apply"],
  };
  const nextBatch = () =>
    new Promise<void>((resolve) => {
      arrived = resolve;
    });
  return { handle, batches, nextBatch };
}

test("the earliest unanswered stamp counts the batch in flight as well as the pings waiting behind it", async () => {
  const shard = heldShard();
  const batches = new PingBatches([shard.handle]);
  assert.is(batches.earliestUnansweredAt(0), null);

  const first = shard.nextBatch();
  const answered = [batches.send(0, pingCommand("c1", T0 + 500)), batches.send(0, pingCommand("c2", T0 + 300))];
  assert.is(batches.earliestUnansweredAt(0), T0 + 300, "waiting");
  await first;
  assert.is(batches.earliestWaitingAt(0), null, "sent: nothing waits");
  assert.is(batches.earliestUnansweredAt(0), T0 + 300, "in flight, still unanswered");

  const later = batches.send(0, pingCommand("c3", T0 + 900)); // waits for the batch in flight
  assert.is(batches.earliestUnansweredAt(0), T0 + 300);
  const second = shard.nextBatch();
  shard.batches[0].answer();
  await Promise.all(answered);
  await second;
  assert.is(batches.earliestUnansweredAt(0), T0 + 900, "the first batch answered: the next one in flight");
  shard.batches[1].answer();
  await later;
  assert.is(batches.earliestUnansweredAt(0), null, "everything answered");
});

test.run();
