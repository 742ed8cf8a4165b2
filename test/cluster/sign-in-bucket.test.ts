// The sign-in state of a cluster in a real nats-server's KV bucket: attempts through two nodes at once take
// no more places than the limit and every place taken is kept (compare-and-set), so the limit of
// SignInLimits holds across nodes; a success gives its place back; a sign-in waiting
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
    const [storeA, storeB] = await Promise.all(
      [connect(), connect()].map(async (nc) => openSignInBucket({ connection: await nc, replicas: 1, bucket: "test-signin" })),
    );
    const a = new SignInLimits(storeA),
      b = new SignInLimits(storeB);
    const keys = [
      { key: "pair:ann@example.org 10.0.0.7", limit: SIGN_IN_FAILURES },
      { key: "account:ann@example.org", limit: 100 },
    ];
    // twice the limit through the two nodes, all at once: no more attempts than the limit get a place, and
    // every place taken is stored (none lost to a concurrent write)
    const burst = await Promise.all(Array.from({ length: 2 * SIGN_IN_FAILURES }, (_, i) => (i % 2 === 0 ? a : b).attempt(keys, AT + i)));
    const granted = burst.flatMap((attempt, i) => (attempt === null ? [] : [AT + i]));
    assert.ok(granted.length >= 1 && granted.length <= SIGN_IN_FAILURES, `granted ${granted.length}`);
    const sorted = (times: readonly number[]) => [...times].sort((x, y) => x - y);
    for (const store of [storeA, storeB]) {
      assert.equal(sorted(await store.failures("pair:ann@example.org 10.0.0.7")), granted, "every place taken is stored, no other");
      assert.equal(sorted(await store.failures("account:ann@example.org")), granted, "a refused attempt gave its other places back");
    }
    // one at a time until refused: the limit exactly, across both nodes
    let more = 0;
    while ((await (more % 2 === 0 ? b : a).attempt(keys, AT + 1_000 + more)) !== null) more++;
    assert.is(granted.length + more, SIGN_IN_FAILURES);
    assert.is(
      await a.attempt([{ key: "pair:ann@example.org 10.0.0.7", limit: SIGN_IN_FAILURES }], AT + 60_000),
      null,
      "the pair alone is blocked on the other node",
    );
    // a success gives its place back
    const other = [{ key: "pair:bo@example.org 10.0.0.8", limit: SIGN_IN_FAILURES }];
    const won = await b.attempt(other, AT + 60_000);
    assert.ok(won !== null, "other keys are not blocked");
    assert.is((await storeA.failures(other[0].key)).length, 1);
    await won.succeeded();
    assert.equal(await storeA.failures(other[0].key), [], "given back");

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
    assert.equal(
      taken.filter((t) => t !== null),
      [start],
      "taken by exactly one node",
    );
    assert.is(await storeB.takeSsoStart(state), null, "and never again");
    assert.is(await storeB.takeSsoStart("o.*"), null, "a wildcard is not a state");
  });
  if (!ran) return; // skipped loudly by withNatsServer
});

test.run();
