// The users and roles of a cluster in a real nats-server's KV bucket: what one node stores every other
// node's Accounts holds soon after, and changes made at once on two nodes are both kept (compare-and-set,
// made again on the winner's document), with one email never given to two users.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Accounts } from "../../host/accounts.ts";
import { openReplicatedAccounts } from "../../cluster/replicated-accounts.ts";
import { withNatsServer } from "./held-appends.ts";

const AT = Date.UTC(2026, 0, 15);
const PASSWORD = "a shared password";

/** Polls `seen` until it holds; fails after 5 s (a failure deadline: nothing passes by waiting). */
async function eventually(what: string, seen: () => boolean): Promise<void> {
  const failAt = Date.now() + 5_000;
  while (!seen()) {
    if (Date.now() > failAt) throw new Error(`not seen within 5 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("users and roles stored through one node reach the other; concurrent changes are all kept", async () => {
  const ran = await withNatsServer("replicated accounts", async (connect) => {
    const [storeA, storeB] = await Promise.all(
      [connect(), connect()].map(async (nc) => openReplicatedAccounts({ connection: await nc, replicas: 1, bucket: "test-accounts" })),
    );
    try {
      const a = new Accounts(storeA),
        b = new Accounts(storeB);
      const made = await a.createUser({ email: "ann@example.org", password: PASSWORD }, AT);
      assert.ok(made.ok);
      const id = made.value.user.id;
      await eventually("the user on node b", () => b.userById(id) !== null);
      assert.is((await b.signIn("ann@example.org", PASSWORD))?.id, id, "the password hash came along");

      // both nodes at once: a role in two projects, each made on a document the other may have changed
      const [onA, onB] = await Promise.all([a.setRole("p1", id, "owner"), b.setRole("p2", id, "readonly")]);
      assert.equal([onA, onB], ["set", "set"]);
      for (const node of [a, b]) {
        await eventually("both roles on every node", () => node.roleIn(id, "p1") === "owner" && node.roleIn(id, "p2") === "readonly");
      }

      const twice = await Promise.all([a.createUser({ email: "bo@example.org" }, AT), b.createUser({ email: "bo@example.org" }, AT)]);
      assert.equal(twice.map((outcome) => outcome.ok).sort(), [false, true], "one email, one user");
      await eventually("one bo on node a", () => a.listUsers().filter((u) => u.email === "bo@example.org").length === 1);

      assert.ok(await b.deleteUser(id));
      await eventually("the removal on node a", () => a.userById(id) === null && a.roleIn(id, "p1") === null);
      const storeC = await openReplicatedAccounts({ connection: await connect(), replicas: 1, bucket: "test-accounts" });
      assert.equal(
        new Accounts(storeC).listUsers().map((u) => u.email),
        ["bo@example.org"],
        "a node started later reads the same",
      );
      storeC.close();
    } finally {
      storeA.close();
      storeB.close();
    }
  });
  if (!ran) console.log("replicated accounts: skipped");
});

test("two owners stepping down at once on two nodes: one of them stays owner", async () => {
  const ran = await withNatsServer("replicated accounts, last owner", async (connect) => {
    const [storeA, storeB] = await Promise.all(
      [connect(), connect()].map(async (nc) => openReplicatedAccounts({ connection: await nc, replicas: 1, bucket: "test-owners" })),
    );
    try {
      const a = new Accounts(storeA),
        b = new Accounts(storeB);
      const ids: string[] = [];
      for (const email of ["one@example.org", "two@example.org"]) {
        const made = await a.createUser({ email, password: PASSWORD }, AT);
        assert.ok(made.ok);
        ids.push(made.value.user.id);
        assert.is(await a.setRole("p1", made.value.user.id, "owner"), "set");
      }
      await eventually("both owners on node b", () => ids.every((id) => b.roleIn(id, "p1") === "owner"));
      // each node sees two owners, so each alone may step down; made again on the winner's document, one is refused
      const outcomes = await Promise.all([a.setRole("p1", ids[0], "manager"), b.removeMember("p1", ids[1])]);
      assert.equal(
        [...outcomes].sort(),
        outcomes[0] === "set" ? ["last_owner", "set"] : ["last_owner", "removed"],
        JSON.stringify(outcomes),
      );
      await eventually("the same one owner on both nodes", () =>
        [a, b].every((node) => ids.filter((id) => node.roleIn(id, "p1") === "owner").length === 1),
      );
    } finally {
      storeA.close();
      storeB.close();
    }
  });
  if (!ran) console.log("replicated accounts: skipped");
});

test.run();
