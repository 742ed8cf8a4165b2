// Accounts on a real DATA_DIR: invitations last 7 days to the millisecond (and give their role only then), passwords are stored as scrypt
// hashes with their parameters (never as given), the file read back holds the same users and roles, and an email
// change's link sets no password (a reset through the old address voids it).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Accounts } from "../../host/accounts.ts";
import { decoyHash, verifyPassword } from "../../host/passwords.ts";
import { tempDir } from "../helpers.ts";

const AT = Date.UTC(2026, 0, 15);
const WEEK = 7 * 24 * 3_600_000;
const PASSWORD = "twelve chars!";

test("an invitation opens its account until 7 days have passed, not after", async () => {
  const accounts = Accounts.open(null);
  const made = await accounts.createUser({ email: "a@example.org" }, AT);
  assert.ok(made.ok);
  const token = made.value.inviteToken ?? "";
  assert.is(accounts.link(token, AT + WEEK - 1)?.user.email, "a@example.org");
  assert.is(accounts.link(token, AT + WEEK), null);
  const late = await accounts.acceptInvite(token, PASSWORD, AT + WEEK);
  assert.equal(late, { ok: false, failure: { code: "not_found", what: "invitation" } });
  assert.is(accounts.link("another token", AT), null);
});

test("an invitation with a role gives it when used within 7 days, once; an expired one gives nothing", async () => {
  const accounts = Accounts.open(null);
  const grant = { projectId: "p1", role: "manager" } as const;
  const late = await accounts.createUser({ email: "late@example.org" }, AT, grant);
  const prompt = await accounts.createUser({ email: "prompt@example.org" }, AT, grant);
  assert.ok(late.ok && prompt.ok);
  assert.equal(
    accounts.pendingInvites("p1", AT).map((i) => [i.email, i.role]),
    [
      ["late@example.org", "manager"],
      ["prompt@example.org", "manager"],
    ],
  );
  assert.equal(accounts.pendingInvites("p1", AT + WEEK), [], "expired invitations are not pending");
  assert.equal(await accounts.acceptInvite(late.value.inviteToken ?? "", PASSWORD, AT + WEEK), {
    ok: false,
    failure: { code: "not_found", what: "invitation" },
  });
  assert.is(accounts.roleIn(late.value.user.id, "p1"), null);
  const used = await accounts.acceptInvite(prompt.value.inviteToken ?? "", PASSWORD, AT + WEEK - 1);
  assert.ok(used.ok);
  assert.is(accounts.roleIn(prompt.value.user.id, "p1"), "manager");
  assert.equal(await accounts.acceptInvite(prompt.value.inviteToken ?? "", "another long password", AT + WEEK - 1), {
    ok: false,
    failure: { code: "not_found", what: "invitation" },
  });
});

test("the password is kept as an scrypt hash with N=2^15, r=8, p=1 that verifies only the password", async () => {
  const dir = tempDir();
  try {
    const accounts = Accounts.open(dir.path);
    assert.ok((await accounts.createUser({ email: "b@example.org", password: PASSWORD }, AT)).ok);
    const file = readFileSync(join(dir.path, "accounts.json"), "utf8");
    assert.not.match(file, /twelve chars/);
    const [{ passwordHash }] = (JSON.parse(file) as { users: { passwordHash: string }[] }).users;
    assert.match(passwordHash, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.ok(await verifyPassword(PASSWORD, passwordHash));
    assert.not.ok(await verifyPassword("twelve chars?", passwordHash));
    assert.is((await accounts.signIn(" B@Example.org ", PASSWORD))?.email, "b@example.org");
    assert.is(await accounts.signIn("b@example.org", "twelve chars?"), null);
  } finally {
    dir.remove();
  }
});

test("users and roles read back from the file are the ones written", async () => {
  const dir = tempDir();
  try {
    const accounts = Accounts.open(dir.path);
    const made = await accounts.createUser({ email: "c@example.org", password: PASSWORD }, AT);
    assert.ok(made.ok);
    assert.is(await accounts.setRole("p1", made.value.user.id, "manager"), "set");
    assert.is(await accounts.setRole("p1", made.value.user.id, "owner"), "set"); // replaces, not adds
    assert.is(await accounts.setRole("p1", "nobody", "owner"), "no_user");
    assert.is(await accounts.setRole("p1", made.value.user.id, "member"), "last_owner", "the only owner stays one");
    assert.is(await accounts.removeMember("p1", made.value.user.id), "last_owner");
    assert.equal(await accounts.deleteUser(made.value.user.id, { keepOwners: true }), { lastOwnerOf: ["p1"] });
    const again = Accounts.open(dir.path);
    assert.equal(again.listUsers(), [made.value.user]);
    assert.is(again.roleIn(made.value.user.id, "p1"), "owner");
    assert.is(again.membershipsOf(made.value.user.id).length, 1);
    assert.ok(await again.deleteUser(made.value.user.id));
    assert.equal(Accounts.open(dir.path).listUsers(), []);
    assert.is(Accounts.open(dir.path).roleIn(made.value.user.id, "p1"), null, "a deleted user's roles go with them");
  } finally {
    dir.remove();
  }
});

test("an email change's link sets no password, and a password reset voids the change waiting", async () => {
  const accounts = Accounts.open(null);
  const made = await accounts.createUser({ email: "c@example.org", password: PASSWORD }, AT);
  assert.ok(made.ok);
  const id = made.value.user.id;
  const asked = await accounts.askEmailChange(id, "c.new@example.org", AT);
  assert.ok(asked.ok);
  assert.is(accounts.link(asked.value.token, AT)?.kind, "email");
  assert.equal(await accounts.acceptInvite(asked.value.token, "a password of the new mailbox", AT), {
    ok: false,
    failure: { code: "not_found", what: "invitation" },
  });
  assert.ok(await accounts.signIn("c@example.org", PASSWORD), "the password is unchanged");
  const reset = await accounts.startReset("c@example.org", AT);
  assert.ok(reset !== null && (await accounts.acceptInvite(reset.token, "a password of the old mailbox", AT)).ok);
  assert.is(accounts.emailChangeWaiting(id, AT), null);
  assert.equal(await accounts.followEmailChange(asked.value.token, AT), { ok: false, failure: { code: "not_found", what: "invitation" } });
  assert.is(accounts.userById(id)?.email, "c@example.org");
});

test("PASSWORD_HASH_N: an Accounts' cost makes every hash it stores and its decoy; a hash made at another cost still verifies", async () => {
  const strong = Accounts.open(null);
  const cheap = Accounts.open(null, { passwordHashN: 1024 });
  const made = await strong.createUser({ email: "h@example.org", password: PASSWORD }, AT);
  const invited = await cheap.createUser({ email: "h@example.org" }, AT);
  assert.ok(made.ok && invited.ok);
  const strongHash = strong.storedUser(made.value.user.id)?.passwordHash ?? "";
  assert.match(strongHash, /^scrypt\$32768\$8\$1\$/);
  assert.ok((await cheap.acceptInvite(invited.value.inviteToken ?? "", PASSWORD, AT)).ok);
  const id = invited.value.user.id;
  assert.match(cheap.storedUser(id)?.passwordHash ?? "", /^scrypt\$1024\$8\$1\$/, "an invitation's password");
  assert.ok((await cheap.changePassword(id, PASSWORD, "a changed password")).ok);
  assert.match(cheap.storedUser(id)?.passwordHash ?? "", /^scrypt\$1024\$8\$1\$/, "a changed password");
  assert.ok(await verifyPassword(PASSWORD, strongHash), "the stronger hash verifies whatever the cost of new ones");
  assert.not.ok(await verifyPassword("twelve chars?", strongHash));
  assert.match(decoyHash(1024), /^scrypt\$1024\$8\$1\$/);

  // an unknown email costs what a known one's wrong password does at this instance's cost (a decoy at the
  // default cost would take some 32 times longer): medians of interleaved rounds, a ratio to that baseline
  const elapsed = async (email: string) => {
    const start = performance.now();
    assert.is(await cheap.signIn(email, "a wrong password"), null);
    return performance.now() - start;
  };
  const known: number[] = [],
    unknown: number[] = [];
  for (let round = 0; round < 15; round++) {
    known.push(await elapsed("h@example.org"));
    unknown.push(await elapsed("nobody@example.org"));
  }
  const median = (times: number[]) => times.sort((a, b) => a - b)[times.length >> 1];
  assert.ok(median(unknown) < 8 * median(known), `unknown email ${median(unknown).toFixed(1)} ms, known ${median(known).toFixed(1)} ms`);
});

test.run();
