// Users across two real hcd cluster nodes on one real nats-server: a user made through one node signs in on
// the other with the role given there, failed sign-ins on one node count toward the limit on the other, and
// taking the role away, then removing the user, on the first refuses the project to their session on the
// second, then ends it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";
import { withTwoNodes } from "./two-nodes.ts";
import { until } from "../helpers.ts";

const TOKEN = "users-nodes-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "one password, two nodes";

test("a user made on node a signs in on node b, wrong passwords on a block sign-in on b, and their removal on a ends the session on b", async () => {
  await withTwoNodes("users across cluster nodes", { ADMIN_TOKEN: TOKEN }, async (a, b) => {
    const project = await createProject(a, TOKEN, { name: "Shared" });
    const user = await ok<{ id: string }>(
      call(a.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "both@example.org", password: PASSWORD } }),
    );
    // through node b: the user and the project must have reached it first
    await until(
      "the role given through node b",
      async () =>
        (await call(b.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "member" } }))
          .status === 200,
    );
    const signIn = await fetch(`${b.url}/signin/password`, {
      method: "POST",
      body: new URLSearchParams({ email: "both@example.org", password: PASSWORD }),
      redirect: "manual",
    });
    assert.is(signIn.status, 303);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
    const page = () => fetch(`${b.url}/projects/${project.id}/checks`, { headers: { cookie }, redirect: "manual" });
    assert.is((await page()).status, 200);
    // ten wrong passwords through node a: the limit holds on node b too, even for the right password
    const tryPassword = (node: RealServer, password: string) =>
      fetch(`${node.url}/signin/password`, {
        method: "POST",
        body: new URLSearchParams({ email: "both@example.org", password }),
        redirect: "manual",
      });
    for (let i = 0; i < 10; i++) assert.is((await tryPassword(a, `wrong password ${i}`)).status, 401);
    assert.is((await tryPassword(b, PASSWORD)).status, 429);
    // the role taken away through node a: node b refuses the project to the session; then the user removed:
    // node b ends the session (how long each took to reach node b is printed: a figure, not a judgement)
    let sent = Date.now();
    assert.is((await call(a.url, "DELETE", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin })).status, 204);
    await until("the project refused on node b", async () => (await page()).status === 404);
    const roleMs = Date.now() - sent;
    sent = Date.now();
    assert.is((await call(a.url, "DELETE", `/admin/v1/users/${user.id}`, { headers: admin })).status, 204);
    await until("the session on node b ended", async () => (await page()).status === 303);
    console.log(
      `users across nodes: a role taken away on node a was in force on node b after ${roleMs} ms, a removed user's session ended after ${Date.now() - sent} ms (asked every 50 ms)`,
    );
  });
});

test.run();
