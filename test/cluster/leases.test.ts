// The pure lease decisions: expiry judged by the claimant's clock, the owner's margin, fair shares, and
// what a node does on a round, as tables of (keys, now, live) → steps.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { LeaseKey, Step } from "../../cluster/leases.ts";
import {
  decodeLease,
  decodePresence,
  encodeLease,
  encodePresence,
  fairShare,
  leaseExpired,
  leaseHeld,
  newLease,
  planRound,
  takers,
  validNodeName,
} from "../../cluster/leases.ts";
import { fnv1a32 } from "../../host/routing.ts";

const lease = (node: string, expiresAt: number) => ({ node, writtenAt: expiresAt - 6_000, expiresAt });
const at = (revision: number, value: ReturnType<typeof lease> | null): LeaseKey => ({ revision, lease: value });

test("a lease is expired for a claimant from its expiry on, and held by its owner until a margin before", () => {
  const l = newLease("a", 1_000, 6_000);
  assert.equal(l, { node: "a", writtenAt: 1_000, expiresAt: 7_000 });
  const table: [number, boolean, boolean][] = [
    // now, expired (claimant), held (owner, margin 500)
    [6_499, false, true],
    [6_500, false, false], // the owner lets go first...
    [6_999, false, false],
    [7_000, true, false], // ...then a claimant may take it
  ];
  for (const [now, expired, held] of table) {
    assert.is(leaseExpired(l, now), expired, `expired at ${now}`);
    assert.is(leaseHeld(l, now, 500), held, `held at ${now}`);
  }
});

test("leases round-trip through their stored bytes; empty or unreadable bytes are no lease", () => {
  const l = newLease("node-1", 5, 10);
  assert.equal(decodeLease(encodeLease(l)), l);
  assert.is(encodeLease(null).length, 0);
  assert.is(decodeLease(new Uint8Array(0)), null);
  for (const bad of ["{", "{}", '{"node":1,"writtenAt":0,"expiresAt":1}', '{"node":"a","writtenAt":"x","expiresAt":1}']) {
    assert.is(decodeLease(new TextEncoder().encode(bad)), null, bad);
  }
});

test("node names are KV key tokens", () => {
  for (const good of ["n1", "host-a_2", "A".repeat(64)]) assert.ok(validNodeName(good), good);
  for (const bad of ["", "a.b", "a b", "a*", ">", "A".repeat(65)]) assert.not.ok(validNodeName(bad), bad);
});

test("fair share is the partition count over the live nodes, rounded up", () => {
  assert.equal([fairShare(12, 1), fairShare(12, 2), fairShare(12, 3), fairShare(12, 5), fairShare(12, 0)], [12, 6, 4, 3, 12]);
});

const sortSteps = (steps: Step[]) => steps.slice().sort((a, b) => a.partition - b.partition);

test("planRound: what a node does with each kind of key", () => {
  const now = 10_000;
  const cases: { name: string; keys: (LeaseKey | null)[]; live: number; expected: Step[] }[] = [
    {
      name: "alone, nothing claimed yet: claim every key at the revision read",
      keys: [at(1, null), at(1, null)],
      live: 1,
      expected: [
        { kind: "claim", partition: 0, revision: 1 },
        { kind: "claim", partition: 1, revision: 1 },
      ],
    },
    { name: "held by another, not expired: leave it", keys: [at(4, lease("b", now + 1))], live: 2, expected: [] },
    {
      name: "held by another, expired at exactly now: claim at its revision",
      keys: [at(4, lease("b", now))],
      live: 2,
      expected: [{ kind: "claim", partition: 0, revision: 4 }],
    },
    {
      name: "released: claim at the release's revision",
      keys: [at(9, null)],
      live: 2,
      expected: [{ kind: "claim", partition: 0, revision: 9 }],
    },
    {
      name: "mine: renew at the revision read, even when my lease ran out (the CAS fails if anyone took it)",
      keys: [at(3, lease("a", now + 5_000)), at(5, lease("a", now - 1))],
      live: 1,
      expected: [
        { kind: "renew", partition: 0, revision: 3 },
        { kind: "renew", partition: 1, revision: 5 },
      ],
    },
    {
      name: "above my share: keep the lowest, release the highest",
      keys: [at(1, lease("a", now + 1)), at(2, lease("a", now + 1)), at(3, lease("a", now + 1)), at(4, lease("b", now + 1))],
      live: 2,
      expected: [
        { kind: "renew", partition: 0, revision: 1 },
        { kind: "renew", partition: 1, revision: 2 },
        { kind: "release", partition: 2, revision: 3 },
      ],
    },
    {
      name: "a key not read this round is left alone, free or not",
      keys: [null, at(2, null)],
      live: 2,
      expected: [{ kind: "claim", partition: 1, revision: 2 }],
    },
    {
      name: "at my share: claim nothing more though some are free",
      keys: [at(1, lease("a", now + 1)), at(2, null), at(3, null), at(4, lease("b", now + 1))],
      live: 4,
      expected: [{ kind: "renew", partition: 0, revision: 1 }],
    },
  ];
  for (const c of cases) assert.equal(sortSteps(planRound({ me: "a", now, keys: c.keys, live: c.live })), c.expected, c.name);
});

test("planRound: claimants start at different points, so two nodes on an empty bucket mostly want different partitions", () => {
  const keys: LeaseKey[] = new Array(12).fill(at(1, null));
  const wants = (me: string) => planRound({ me, now: 0, keys, live: 3 }).map((s) => s.partition);
  const a = wants("n1"),
    b = wants("n2");
  assert.is(a.length, 4);
  assert.is(a[0], fnv1a32("n1") % 12, "the first wanted partition is the node's own starting point");
  assert.is(b[0], fnv1a32("n2") % 12);
  assert.ok(
    a.every((p, i) => i === 0 || p === (a[i - 1] + 1) % 12),
    `consecutive from the start: ${a}`,
  );
});

test("planRound: after a node's leases run out, the survivors take all of its partitions, each up to its new share", () => {
  const now = 50_000;
  // 12 partitions: 4 each for a, b, c; c stopped renewing and its leases expired
  const keys: LeaseKey[] = Array.from({ length: 12 }, (_, p) =>
    at(p + 1, lease(["a", "b", "c"][p % 3], p % 3 === 2 ? now - 1 : now + 3_000)),
  );
  const orphaned = [2, 5, 8, 11];
  /** Plays `me`'s round on the keys as a bucket would: each step lands when its revision is still the key's. */
  const round = (me: string): number[] => {
    const steps = planRound({ me, now, keys, live: 2 });
    for (const step of steps) {
      if (keys[step.partition].revision !== step.revision) continue;
      keys[step.partition] = at(step.revision + 1, step.kind === "release" ? null : lease(me, now + 6_000));
    }
    return steps
      .filter((s) => s.kind === "claim")
      .map((s) => s.partition)
      .sort((x, y) => x - y);
  };
  // a starts at partition 4 (fnv1a32("a") % 12), b at 1: each claims the orphaned partitions it meets first
  const byA = round("a"),
    byB = round("b");
  assert.equal(byA, [5, 8], "a claims two (4 held + 2 = its share of 6)");
  assert.equal(byB, [2, 11], "b, after a's claims landed, claims the two left");
  assert.equal(
    [...byA, ...byB].sort((x, y) => x - y),
    orphaned,
    "every orphaned partition claimed, once",
  );
  const holders = (node: string) => keys.flatMap((k, p) => (k.lease?.node === node ? [p] : []));
  assert.equal(holders("a"), [0, 3, 5, 6, 8, 9]);
  assert.equal(holders("b"), [1, 2, 4, 7, 10, 11]);
  assert.equal(holders("c"), [], "none of c's partitions is left to it");
});

test("a presence is stored as a lease, with the hand-off flag only while set; a lease read as a presence hands nothing off", () => {
  const presence = { ...newLease("n1", 5, 10), handingOff: false };
  assert.equal(decodePresence(encodePresence(presence)), presence);
  assert.equal(new TextDecoder().decode(encodePresence(presence)), '{"node":"n1","writtenAt":5,"expiresAt":15}');
  assert.equal(decodePresence(encodePresence({ ...presence, handingOff: true })), { ...presence, handingOff: true });
  assert.equal(decodePresence(encodeLease(newLease("n2", 1, 2))), { node: "n2", writtenAt: 1, expiresAt: 3, handingOff: false });
  assert.is(decodePresence(new Uint8Array(0)), null);
  assert.is(decodePresence(new TextEncoder().encode('{"node":"a"}')), null);
});

test("takers: me unless I hand off, and every other node present that hands nothing off", () => {
  const now = 10_000;
  const present = (node: string, handingOff = false, expiresAt = now + 1) => ({ ...lease(node, expiresAt), handingOff });
  const table: [string, Parameters<typeof takers>[0], boolean, number][] = [
    ["alone", [], false, 1],
    ["alone, handing off", [], true, 0],
    ["my own presence is not counted twice", [present("a")], false, 1],
    ["two others", [present("b"), present("c")], false, 3],
    ["one other hands off", [present("b", true), present("c")], false, 2],
    ["one other's presence ran out (at exactly now)", [present("b"), present("c", false, now)], false, 2],
    ["I hand off: the others only", [present("a", true), present("b"), present("c")], true, 2],
  ];
  for (const [name, presences, meHandingOff, expected] of table) assert.is(takers(presences, "a", meHandingOff, now), expected, name);
});

test("planRound: a node handing partitions off releases them, renews the rest and claims nothing", () => {
  const now = 10_000;
  const keys = [at(1, lease("a", now + 1)), at(2, lease("a", now + 1)), at(3, null), at(4, lease("b", now - 1))];
  assert.equal(sortSteps(planRound({ me: "a", now, keys, live: 2, handingOff: new Set([1]) })), [
    { kind: "renew", partition: 0, revision: 1 },
    { kind: "release", partition: 1, revision: 2 },
  ]);
  // not handing off: the same keys give the usual round
  assert.equal(sortSteps(planRound({ me: "a", now, keys, live: 2, handingOff: new Set() })), [
    { kind: "renew", partition: 0, revision: 1 },
    { kind: "renew", partition: 1, revision: 2 },
  ]);
});

test("planRound: shares counted without a node handing off give its partitions a taker beyond the old share", () => {
  const now = 10_000;
  // 8 partitions held 3/3/2 by a, b, c; a released 0 and 1 (handed off), so they are free
  const keys = [
    at(5, null),
    at(5, null),
    at(1, lease("a", now + 1)),
    at(1, lease("b", now + 1)),
    at(1, lease("b", now + 1)),
    at(1, lease("b", now + 1)),
    at(1, lease("c", now + 1)),
    at(1, lease("c", now + 1)),
  ];
  const claims = (me: string, live: number) => planRound({ me, now, keys, live }).filter((step) => step.kind === "claim").length;
  assert.is(claims("b", 3), 0, "counting a, b is at its share of 3");
  assert.is(claims("b", 2), 1, "without a, b's share is 4");
  assert.is(claims("c", 2), 2, "and c's: 2 more");
});

test.run();
