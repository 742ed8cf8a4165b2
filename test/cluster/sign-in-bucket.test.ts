// The sign-in state of a cluster in a real nats-server's KV bucket: failures counted through two nodes at
// once are all kept (compare-and-set), so the limit of SignInLimits holds across nodes; a sign-in waiting
// for its second factor, stored through one node, is found and dropped through the other; a single sign-on
// started through one node is taken once, on whichever node; an id that is not one the dashboard makes
// names nothing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomBytes } from "node:crypto";
import { openSignInBucket } from "../../cluster/sign-in-bucket.ts";
import { SIGN_IN_FAILURES, SignInLimits } from "../../http/dashboard/sign-in-limits.ts";
import { withNatsServer } from "./held-appends.ts";

const AT = Date.UTC(2026, 0, 15);

test("failures counted on two nodes at once add up to one limit; a pending sign-in is seen by the other node", async () => {
  const ran = await withNatsServer("the sign-in bucket", async (connect) => {
    const [storeA, storeB] = await Promise.all([connect(), connect()].map(async (nc) => openSignInBucket({ connection: await nc, replicas: 1, bucket: "test-signin" })));
    const a = new SignInLimits(storeA), b = new SignInLimits(storeB);
    const keys = ["address:10.0.0.7", "account:ann@example.org"];
    // half the limit through each node, all at once
    await Promise.all(Array.from({ length: SIGN_IN_FAILURES }, (_, i) => (i % 2 === 0 ? a : b).count(keys, AT + i)));
    const sorted = (times: readonly number[]) => [...times].sort((x, y) => x - y);
    const expected = Array.from({ length: SIGN_IN_FAILURES }, (_, i) => AT + i);
    for (const store of [storeA, storeB]) {
      assert.equal(sorted(await store.failures("account:ann@example.org")), expected, "no failure lost to a concurrent write");
      assert.equal(sorted(await store.failures("address:10.0.0.7")), expected);
    }
    assert.is(await a.isBlocked(keys, AT + 60_000), true);
    assert.is(await b.isBlocked(["address:10.0.0.7"], AT + 60_000), true, "the address alone is blocked on the other node");
    assert.is(await b.isBlocked(["address:10.0.0.8", "account:bo@example.org"], AT + 60_000), false, "other keys are not");

    const id = randomBytes(32).toString("base64url");
    await storeA.putPending(id, { userId: "u1", email: "ann@example.org", expiresAt: AT + 300_000 });
    assert.equal(await storeB.pending(id), { userId: "u1", email: "ann@example.org", expiresAt: AT + 300_000 });
    await storeB.dropPending(id);
    assert.is(await storeA.pending(id), null, "dropped on one node, gone on the other");
    assert.is(await storeA.pending("p.>"), null, "a wildcard is not an id");

    // an SSO start made on one node is taken on the other, once: two nodes given the same callback at once
    // take it once between them
    const state = randomBytes(32).toString("base64url");
    const start = { url: "https://idp.example/authorize", state, nonce: "n", codeVerifier: "v", expiresAt: AT + 600_000 };
    await storeA.putSsoStart(start);
    const taken = await Promise.all([storeA.takeSsoStart(state), storeB.takeSsoStart(state)]);
    assert.equal(taken.filter((t) => t !== null), [start], "taken by exactly one node");
    assert.is(await storeB.takeSsoStart(state), null, "and never again");
    assert.is(await storeB.takeSsoStart("o.*"), null, "a wildcard is not a state");
  });
  if (!ran) return; // skipped loudly by withNatsServer
});

test.run();
