// Sessions across the nodes of a cluster (two real nodes, one real nats-server, a real SMTP receiver): a
// password reset on node a ends the user's sessions held by node b (and node a no longer adopts them); so
// does a password change; an email change asked through node b is made by its link followed on node a;
// sessions outlive restarting node a, then node b, while the other serves, and a sign-out before stays
// signed out; an admin-token session ends when the nodes restart with a new ADMIN_TOKEN, on either node.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { haveProgram } from "../ops/extras.ts";
import { startNatsCluster } from "../stress/nats-cluster.ts";
import { tempDir, until } from "../helpers.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser } from "../security/form-client.ts";
import type { TwoNodes } from "./two-nodes.ts";
import { startTwoNodes } from "./two-nodes.ts";

const TOKEN = "session-ends-nodes-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "carol's first password";
const LINK = /https?:\/\/\S+\/invite\/[\w-]{43}/;

const accountStatus = async (node: RealServer, cookie: string) => (await getPage(node.url, "/account", cookie)).status;

// nodes a and b, shared by the tests up to the admin token's (which starts its own)
let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
let two: TwoNodes | null = null;
test.before(async () => {
  smtp = await smtpReceiver();
  two = await startTwoNodes("sessions across cluster nodes", { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url });
});
test.after(async () => {
  await two?.stop();
  await smtp?.close();
});
/** The text of the newest mail to `to`, once one has come. */
const mailTo = async (to: string) => {
  const sentTo = (m: (typeof smtp.mails)[number]) => (m.to && "text" in m.to ? m.to.text : "") === to;
  await until(`a mail to ${to}`, () => smtp.mails.some(sentTo));
  return smtp.mails.filter(sentTo).pop()?.text ?? "";
};
/** Makes a user through node a; resolves once they sign in on node b. */
const userMadeOnA = async (email: string, password: string) => {
  const [a, b] = two!.nodes;
  await ok(call(a.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password } }));
  await until(`${email} on node b`, async () => (await signInUser(b, email, password)).status === 303);
};

test("a password reset and a password change on node a end the user's sessions on node b", async () => {
  if (two === null) return;
  const [a, b] = two.nodes;
  await userMadeOnA("carol@corp.example", PASSWORD);
  const onB = (await signInUser(b, "carol@corp.example", PASSWORD)).cookie;
  const onA = (await signInUser(a, "carol@corp.example", PASSWORD)).cookie;
  assert.is(await accountStatus(b, onB), 200);
  assert.is(await accountStatus(a, onA), 200);

  // the reset, through node a
  assert.is((await postForm(a.url, "/reset", { email: "carol@corp.example" })).status, 200);
  const link = LINK.exec(await mailTo("carol@corp.example"))?.[0] ?? "";
  const set = await postForm(a.url, new URL(link).pathname, { password: "carol's second password" });
  assert.is(set.status, 303, set.text.slice(0, 300));
  assert.is(await accountStatus(a, onA), 303, "node a's session of the old password ended");
  await until("node b's session of the old password ended on node b", async () => (await accountStatus(b, onB)) === 303);
  assert.is(await accountStatus(a, onB), 303, "and node a does not adopt it");

  // a password change, through node a
  const fresh = (await signInUser(b, "carol@corp.example", "carol's second password")).cookie;
  assert.is(await accountStatus(b, fresh), 200);
  const changed = await postForm(
    a.url,
    "/account/password",
    { csrf: await csrfOf(a.url, set.cookie), current: "carol's second password", password: "carol's third password" },
    { cookie: set.cookie },
  );
  assert.is(changed.status, 200, changed.text.slice(0, 300));
  await until("node b's session ended after the change on node a", async () => (await accountStatus(b, fresh)) === 303);
  assert.is(await accountStatus(b, changed.cookie), 200, "the browser that changed it goes on, on either node");
});

test("an email change asked through node b is made by its link followed on node a", async () => {
  if (two === null) return;
  const [a, b] = two.nodes;
  const password = "erin's one password";
  await userMadeOnA("erin@corp.example", password);
  const cookie = (await signInUser(b, "erin@corp.example", password)).cookie;
  const asked = await postForm(
    b.url,
    "/account/email",
    { csrf: await csrfOf(b.url, cookie), email: "erin.new@corp.example", password },
    { cookie },
  );
  assert.is(asked.status, 200, asked.text.slice(0, 300));
  const path = new URL(LINK.exec(await mailTo("erin.new@corp.example"))?.[0] ?? "http://none/").pathname;
  assert.is((await signInUser(b, "erin.new@corp.example", password)).status, 401, "not before the link is followed");
  // node a has the link once the accounts document reaches it (until then it is unknown there)
  await until("the link followed on node a", async () => (await postForm(a.url, path, {})).status === 200);
  await until("the new email signs in on node b", async () => (await signInUser(b, "erin.new@corp.example", password)).status === 303);
  assert.is((await signInUser(b, "erin@corp.example", password)).status, 401, "the old email no more");
  await until("the session on node b ended", async () => (await accountStatus(b, cookie)) === 303);
  assert.match(await mailTo("erin@corp.example"), "is now erin.new@corp.example");
});

test("sessions outlive restarting node a, then node b, while the other serves; a sign-out before stays signed out", async () => {
  if (two === null) return;
  const [a, b] = two.nodes;
  const password = "dan's one password";
  await userMadeOnA("dan@corp.example", password);
  const cookies = {
    "signed in on node a": (await signInUser(a, "dan@corp.example", password)).cookie,
    "signed in on node b": (await signInUser(b, "dan@corp.example", password)).cookie,
    "the admin token's, on node b": await signInKey(b.url, TOKEN),
  };
  const out = (await signInUser(a, "dan@corp.example", password)).cookie;
  const signedOut = await postForm(b.url, "/signout", { csrf: await csrfOf(b.url, out) }, { cookie: out });
  assert.is(signedOut.status, 303, signedOut.text.slice(0, 300));
  await until("the sign-out through node b holds on node a", async () => (await accountStatus(a, out)) === 303);
  /** Each cookie's answer on `node`: the account page (200) or the sign-in page (303); the admin token's, its home page. */
  const answers = async (node: RealServer) => ({
    ...Object.fromEntries(
      await Promise.all(
        Object.entries(cookies).map(async ([name, cookie]) => [
          name,
          name.startsWith("the admin")
            ? /action="\/signout"/.test((await getPage(node.url, "/", cookie)).text)
              ? 200
              : 303
            : await accountStatus(node, cookie),
        ]),
      ),
    ),
    "signed out before": await accountStatus(node, out),
  });
  const expected = {
    "signed in on node a": 200,
    "signed in on node b": 200,
    "the admin token's, on node b": 200,
    "signed out before": 303,
  };
  for (const [name, node] of [
    ["a", a],
    ["b", b],
  ] as const)
    assert.equal(await answers(node), expected, `before the restarts, on node ${name}`);
  await two.restart(0, async () => assert.equal(await answers(b), expected, "on node b while node a is down"));
  assert.equal(await answers(two.nodes[0]), expected, "on node a restarted");
  await two.restart(1, async () => assert.equal(await answers(two!.nodes[0]), expected, "on node a while node b is down"));
  for (const [name, node] of [
    ["a", two.nodes[0]],
    ["b", two.nodes[1]],
  ] as const)
    assert.equal(await answers(node), expected, `after both restarts, on node ${name}`);
});

test("an admin-token session ends when the nodes restart with a new ADMIN_TOKEN", async () => {
  if (!haveProgram("nats-server", "admin sessions across a token change")) return;
  const nats = await startNatsCluster({ size: 1 });
  const dirs = [tempDir(), tempDir()];
  const start = (token: string) =>
    Promise.all(
      dirs.map((dir, i) =>
        startServer({
          dataDir: dir.path,
          env: { ADMIN_TOKEN: token, NATS_URL: nats.urls.join(","), NODE_ID: `node-${i}`, CLUSTER_PARTITIONS: "4", CLUSTER_REPLICAS: "1" },
        }),
      ),
    );
  let nodes: RealServer[] = [];
  try {
    nodes = await start(TOKEN);
    const cookie = await signInKey(nodes[1].url, TOKEN);
    await createProject(nodes[0], TOKEN, { name: "Before" });
    assert.match((await getPage(nodes[0].url, "/", cookie)).text, /action="\/signout"/, "the admin session works on either node");
    for (const node of nodes) assert.is(await stopServer(node), 0, node.output());
    const NEW = "the-rotated-admin-token-9876543210";
    nodes = await start(NEW);
    assert.is(
      (await call(nodes[0].url, "GET", "/admin/v1/projects", { headers: admin })).status,
      401,
      "the old token is refused by the API",
    );
    for (const node of nodes) {
      const home = await getPage(node.url, "/", cookie);
      assert.not.match(home.text, /action="\/signout"/, "the old session is not signed in");
      assert.match(home.text, /Admin token or API key/, "the sign-in page");
      const made = await postForm(node.url, "/projects", { csrf: "anything", name: "After" }, { cookie });
      assert.is(made.status, 401, made.text.slice(0, 300));
    }
    const projects = await ok<{ projects: { name: string }[] }>(
      call(nodes[0].url, "GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${NEW}` } }),
    );
    assert.equal(
      projects.projects.map((p) => p.name),
      ["Before"],
    );
    const fresh = await signInKey(nodes[0].url, NEW);
    assert.match((await getPage(nodes[1].url, "/", fresh)).text, /action="\/signout"/, "a session of the new token works");
  } finally {
    for (const node of nodes) if (node.alive()) assert.is(await stopServer(node), 0, node.output());
    await nats.close();
    for (const dir of dirs) dir.remove();
  }
});

test.run();
