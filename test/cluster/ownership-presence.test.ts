// A node's watch of the presence bucket whose consumer is lost while its connection stays up (as when the
// consumer's server dies) goes silent; the client would notice only after two missed heartbeats of 30 s,
// and meanwhile the node does not see others join, keeps more than its share, and a joining node gets
// nothing. The owner notices within a round (its own presence write never came back through the watch)
// and watches again. One real nats-server.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { Ownership } from "../../cluster/ownership.ts";
import { until } from "../helpers.ts";
import { withNatsServer } from "./held-appends.ts";

const PARTITIONS = 6;

test("owners whose presence watches lost their consumers see a third node join within seconds and give it its share", async () => {
  await withNatsServer("a presence watch whose consumer is lost", async (connect) => {
    const nc = await connect();
    const open = (node: string) =>
      Ownership.open({ connection: nc, node, partitionCount: PARTITIONS, replicas: 1, leaseMs: 2_000, renewEveryMs: 500 });
    const [a, b] = [await open("a"), await open("b")];
    const owners = [a, b];
    try {
      for (const owner of owners) owner.start();
      await until("a and b hold half each", () => owners.every((o) => o.owned().length === PARTITIONS / 2), 20_000);
      const jsm = await managerOf(nc);
      const watches = await jsm.consumers.list("KV_hcd-owner-nodes").next();
      assert.is(watches.length, 2, "one presence watch per owner");
      for (const consumer of watches) await jsm.consumers.delete("KV_hcd-owner-nodes", consumer.name);

      const c = await open("c");
      owners.push(c);
      c.start();
      // without a new watch, a and b would count two live nodes (and keep three partitions each) for a minute
      await until("every owner holds a third", () => owners.every((o) => o.owned().length === PARTITIONS / 3), 20_000);
      assert.ok(a.presenceRewatches >= 1 && b.presenceRewatches >= 1, `rewatches: a ${a.presenceRewatches}, b ${b.presenceRewatches}`);
      assert.is(c.presenceRewatches, 0, "c's own watch never stalled");
    } finally {
      await Promise.all(owners.map((o) => o.stop()));
    }
  });
});

test.run();
