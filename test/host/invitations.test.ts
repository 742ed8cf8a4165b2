// The rules of invitation links over the accounts in memory: each link gives only its own role; a link sets
// a password only for the account its own inviter brought into being (or the admin token's, or a reset),
// and only before the user has joined; any other link gives its role to the user signed in.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Accounts } from "../../host/accounts.ts";

const AT = Date.UTC(2026, 0, 15);
const PASSWORD = "twelve chars!";

test("a second inviter's link sets no password; the first link gives its own role alone; the second is accepted signed in", async () => {
  const accounts = Accounts.open(null);
  const made = await accounts.createUser({ email: "v@example.org" }, AT, { projectId: "B", role: "owner" }, "B boss");
  assert.ok(made.ok);
  const user = made.value.user;
  const second = await accounts.inviteAgain(user.id, { projectId: "A", role: "readonly" }, AT, "A mallory");
  assert.equal(second?.setsPassword, false);
  assert.is(accounts.link(second?.token ?? "", AT)?.kind, "grant-only");
  assert.equal(await accounts.acceptInvite(second?.token ?? "", PASSWORD, AT), {
    ok: false,
    failure: { code: "not_found", what: "invitation" },
  });
  assert.is(accounts.hasPassword(user.id), false);
  assert.is(await accounts.acceptGrant(second?.token ?? "", "someone else", AT), null, "only its own user accepts it");
  const first = await accounts.acceptInvite(made.value.inviteToken ?? "", PASSWORD, AT);
  assert.ok(first.ok);
  assert.equal(first.value.grant, { projectId: "B", role: "owner" });
  assert.equal([accounts.roleIn(user.id, "B"), accounts.roleIn(user.id, "A")], ["owner", null]);
  assert.equal(await accounts.acceptGrant(second?.token ?? "", user.id, AT), { projectId: "A", role: "readonly" });
  assert.is(accounts.roleIn(user.id, "A"), "readonly");
});

test("once joined, no invitation link sets the password: not the account's own inviter's, not the admin token's", async () => {
  const accounts = Accounts.open(null);
  const made = await accounts.createUser({ email: "w@example.org" }, AT, { projectId: "A", role: "member" }, "A ann");
  assert.ok(made.ok && (await accounts.acceptInvite(made.value.inviteToken ?? "", PASSWORD, AT)).ok);
  const generation = accounts.sessionGeneration(made.value.user.id);
  for (const inviter of ["A ann", "admin"]) {
    const again = await accounts.inviteAgain(made.value.user.id, { projectId: "C", role: "member" }, AT, inviter);
    assert.equal(again?.setsPassword, false, inviter);
    assert.is((await accounts.acceptInvite(again?.token ?? "", "another password!", AT)).ok, false, inviter);
  }
  assert.is(accounts.sessionGeneration(made.value.user.id), generation, "nothing ended the user's sessions");
  assert.ok(await accounts.signIn("w@example.org", PASSWORD), "the password is the user's own");
});

test("the account's own inviter may invite again with a link that sets the password, in place of the older one", async () => {
  const accounts = Accounts.open(null);
  const made = await accounts.createUser({ email: "x@example.org" }, AT, { projectId: "A", role: "member" }, "A ann");
  assert.ok(made.ok);
  const again = await accounts.inviteAgain(made.value.user.id, { projectId: "A", role: "manager" }, AT, "A ann");
  assert.equal(again?.setsPassword, true);
  assert.is(accounts.link(made.value.inviteToken ?? "", AT), null, "the older link is replaced");
  const used = await accounts.acceptInvite(again?.token ?? "", PASSWORD, AT);
  assert.ok(used.ok);
  assert.is(accounts.roleIn(made.value.user.id, "A"), "manager");
});

test("a reset sets the password, gives no role, ends the sessions; other projects' invitations stay pending", async () => {
  const accounts = Accounts.open(null);
  const made = await accounts.createUser({ email: "y@example.org", password: PASSWORD }, AT);
  assert.ok(made.ok);
  const id = made.value.user.id;
  await accounts.inviteAgain(id, { projectId: "A", role: "member" }, AT, "A ann"); // joined: a grant-only invitation
  const reset = await accounts.startReset("y@example.org", AT);
  assert.is(accounts.link(reset?.token ?? "", AT)?.kind, "reset");
  const done = await accounts.acceptInvite(reset?.token ?? "", "a new password!!", AT);
  assert.ok(done.ok);
  assert.is(done.value.grant, null);
  assert.is(accounts.roleIn(id, "A"), null);
  assert.is(accounts.sessionGeneration(id), 1);
  assert.equal(
    accounts.pendingInvites("A", AT).map((i) => i.email),
    ["y@example.org"],
  );
});

test.run();
