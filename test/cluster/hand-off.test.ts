// A node whose takeovers keep failing hands its partitions off, and they always find a taker: the other
// nodes' shares are counted without it, so they take what it lets go even when they already hold their
// share; once its hand-off time is over it takes its share again. Two and three nodes on one real
// nats-server; node a's takeovers fail in their catch-up (as when its intake reader delivers nothing).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { PartitionNode } from "../../cluster/partition-node.ts";
import type { PartitionNodeOptions } from "../../cluster/partition-node.ts";
import { until } from "../helpers.ts";
import { withNatsServer } from "./held-appends.ts";

type Connect = Parameters<Parameters<typeof withNatsServer>[1]>[0];

/** Opens nodes on their own connections, with short leases, hand-offs after 1.5 s of failures and for 8 s. */
async function openNodes(
  connect: Connect,
  partitionCount: number,
  names: readonly string[],
  options: (name: string) => Partial<PartitionNodeOptions>,
): Promise<PartitionNode[]> {
  const nodes: PartitionNode[] = [];
  for (const name of names) {
    nodes.push(
      await PartitionNode.open({
        connection: await connect(),
        node: name,
        partitionCount,
        replicas: 1,
        leaseMs: 2_000,
        renewEveryMs: 500,
        advanceEveryMs: 200,
        handOffAfterMs: 1_500,
        handOffForMs: 8_000,
        ...options(name),
      }),
    );
  }
  return nodes;
}

/** Node a's catch-up fails while `broken.a` is true. */
function failingA(broken: { a: boolean }, calls: { a: number }): (name: string) => Partial<PartitionNodeOptions> {
  return (name) =>
    name !== "a"
      ? {}
      : {
          catchUp: async (_partition, _replica, now) => {
            calls.a += 1;
            if (broken.a) throw new Error("the pings acknowledged before this request were not applied within 10 s");
            return now;
          },
        };
}

const served = (nodes: readonly PartitionNode[]) => nodes.flatMap((node) => node.ready()).sort((x, y) => x - y);
const all = (count: number) => Array.from({ length: count }, (_, p) => p);

test("two nodes: a's failing partitions are handed to b, beyond b's share; a takes its share again once well", async () => {
  await withNatsServer("a partition handed off between two nodes", async (connect) => {
    const broken = { a: true },
      calls = { a: 0 };
    const nodes = await openNodes(connect, 6, ["a", "b"], failingA(broken, calls));
    const [a, b] = nodes;
    try {
      for (const node of nodes) node.start();
      await until("a gains partitions and fails to take them over", () => calls.a > 0, 30_000);
      await until("b serves every partition, a none", () => b.ready().length === 6 && a.ready().length === 0, 30_000);
      broken.a = false;
      // the hand-off lasts 8 s: then a counts again, b's share falls to 3, and a takes what b lets go
      await until("a and b serve three each", () => a.ready().length === 3 && b.ready().length === 3, 30_000);
      assert.equal(served(nodes), all(6), "every partition served once");
    } finally {
      await Promise.all(nodes.map((node) => node.stop()));
    }
  });
});

test("three nodes: a's failing partitions are taken by b and c though each held its share", async () => {
  await withNatsServer("a partition handed off among three nodes", async (connect) => {
    const broken = { a: true },
      calls = { a: 0 };
    const nodes = await openNodes(connect, 8, ["a", "b", "c"], failingA(broken, calls));
    const [a, b, c] = nodes;
    try {
      for (const node of nodes) node.start();
      await until("a gains partitions and fails to take them over", () => calls.a > 0, 30_000);
      // shares of 3, 3 and 2: b and c hold 3 each at most unless their shares are counted without a
      await until(
        "b and c serve every partition, a none",
        () => b.ready().length + c.ready().length === 8 && a.ready().length === 0,
        30_000,
      );
      assert.equal(served(nodes), all(8), "every partition served once");
    } finally {
      await Promise.all(nodes.map((node) => node.stop()));
    }
  });
});

test.run();
