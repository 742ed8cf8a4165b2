// Sessions end on every node of a cluster (two real nodes, one real nats-server): a password reset on node
// a ends the user's sessions held by node b (and node a no longer adopts them); so does a password change;
// an admin-token session ends when the nodes restart with a new ADMIN_TOKEN, on either node.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { haveProgram } from "../ops/extras.ts";
import { startNatsCluster } from "../stress/nats-cluster.ts";
import { tempDir, until } from "../helpers.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser } from "../security/form-client.ts";
import { withTwoNodes } from "./two-nodes.ts";

const TOKEN = "session-ends-nodes-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "carol's first password";

const accountStatus = async (node: RealServer, cookie: string) => (await getPage(node.url, "/account", cookie)).status;

test("a password reset and a password change on node a end the user's sessions on node b", async () => {
  const smtp = await smtpReceiver();
  try {
    await withTwoNodes("sessions ended across cluster nodes", { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url }, async (a, b) => {
      await ok(call(a.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "carol@corp.example", password: PASSWORD } }));
      await until("the user on node b", async () => (await signInUser(b, "carol@corp.example", PASSWORD)).status === 303);
      const onB = (await signInUser(b, "carol@corp.example", PASSWORD)).cookie;
      const onA = (await signInUser(a, "carol@corp.example", PASSWORD)).cookie;
      assert.is(await accountStatus(b, onB), 200);
      assert.is(await accountStatus(a, onA), 200);

      // the reset, through node a
      assert.is((await postForm(a.url, "/reset", { email: "carol@corp.example" })).status, 200);
      await until("the reset mail", () => smtp.mails.length === 1);
      const link = /https?:\/\/\S+\/invite\/[\w-]{43}/.exec(smtp.mails[0].text ?? "")?.[0] ?? "";
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
  } finally {
    await smtp.close();
  }
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
