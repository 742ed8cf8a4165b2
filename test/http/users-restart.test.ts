// Users, their passwords, invitations and roles outlive a restart of the process (DATA_DIR/accounts.json).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";

const TOKEN = "users-restart-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a password kept on disk";
const HCD = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));

async function signIn(server: RealServer, email: string, password: string): Promise<{ status: number; cookie: string }> {
  const response = await fetch(`${server.url}/signin/password`, {
    method: "POST",
    body: new URLSearchParams({ email, password }),
    redirect: "manual",
  });
  return { status: response.status, cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] };
}

test("after a restart the users are listed, sign in with their passwords, keep their roles and open invitations", async () => {
  const dir = tempDir();
  let server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const project = await createProject(server, TOKEN, { name: "Kept" });
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "kept@example.org", password: PASSWORD } }),
    );
    await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "member" } }));
    const invited = await ok<{ invite_url: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "later@example.org" } }),
    );
    const list = await ok<unknown>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
    assert.is(await stopServer(server), 0, server.output());

    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
    assert.equal(await ok(call(server.url, "GET", "/admin/v1/users", { headers: admin })), list);
    const members = await ok<{ members: { id: string; role: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/members`, { headers: admin }),
    );
    assert.equal(
      members.members.map((m) => [m.id, m.role]),
      [[user.id, "member"]],
    );
    assert.is((await signIn(server, "kept@example.org", "not the password")).status, 401);
    const { status, cookie } = await signIn(server, "kept@example.org", PASSWORD);
    assert.is(status, 303);
    const page = await fetch(`${server.url}/projects/${project.id}/checks`, { headers: { cookie }, redirect: "manual" });
    assert.is(page.status, 200, "the role is kept");
    const invitation = await fetch(`${server.url}${new URL(invited.invite_url).pathname}`, {
      method: "POST",
      body: new URLSearchParams({ password: PASSWORD }),
      redirect: "manual",
    });
    assert.is(invitation.status, 303, "the invitation still opens");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test("a backup carries the users and roles: restored into a new DATA_DIR they sign in with their roles", async () => {
  const dir = tempDir();
  const original = join(dir.path, "original"),
    restored = join(dir.path, "restored"),
    file = join(dir.path, "hcd.backup");
  let server = await startServer({ dataDir: original, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const project = await createProject(server, TOKEN, { name: "Backed up" });
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "saved@example.org", password: PASSWORD } }),
    );
    await ok(
      call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "readonly" } }),
    );
    const backup = await fetch(`${server.url}/admin/v1/backup`, { method: "POST", headers: admin });
    assert.is(backup.status, 200);
    writeFileSync(file, Buffer.from(await backup.arrayBuffer()));
    assert.is(await stopServer(server), 0, server.output());
    const restore = spawnSync(process.execPath, [HCD, "restore", "--in", file, "--data-dir", restored], { encoding: "utf8" });
    assert.is(restore.status, 0, restore.stderr);

    server = await startServer({ dataDir: restored, env: { ADMIN_TOKEN: TOKEN } });
    const { status, cookie } = await signIn(server, "saved@example.org", PASSWORD);
    assert.is(status, 303);
    const page = await fetch(`${server.url}/projects/${project.id}/checks`, { headers: { cookie }, redirect: "manual" });
    assert.is(page.status, 200);
    assert.not.match(await page.text(), /checks\/new">Add check<\/a>/, "still readonly: no Add check button");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
