// `npx hcd user create --email ... [--admin]` as an operator runs it on a fresh instance: the first start's log
// and the sign-in page say how; the password piped to standard input signs in at once (through a running
// server with --url, or on a stopped DATA_DIR); with nothing on standard input an invitation link is printed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { getPage, signInUser } from "../security/form-client.ts";
import { startServer, stopServer } from "../security/real-server.ts";

const BIN = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));
const TOKEN = "user-create-admin-token-0123456789";
const PASSWORD = "the first admin's password";

/** Runs `hcd` as a child process; `stdin`: what is piped to it (null: nothing, as from /dev/null). */
function hcd(
  args: string[],
  env: Record<string, string>,
  stdin: string | null,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: [stdin === null ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "",
      stderr = "";
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
    if (stdin !== null) child.stdin?.end(stdin);
  });
}

test("the first admin is made by the CLI, through a running server and on a stopped DATA_DIR", async () => {
  const dir = tempDir();
  const env = { DATA_DIR: dir.path, ADMIN_TOKEN: TOKEN, PASSWORD_HASH_N: "1024" };
  try {
    let server = await startServer({ dataDir: dir.path, env });
    try {
      assert.match(server.output(), "no users yet: make the first instance admin with");
      assert.match(server.output(), "npx hcd user create --url");
      const signIn = await getPage(server.url, "/", "");
      assert.match(signIn.text, `id="first-admin"`);
      assert.match(signIn.text, "hcd user create --url");

      const made = await hcd(["user", "create", "--url", server.url, "--email", "Root@Corp.example", "--admin"], env, `${PASSWORD}\n`);
      assert.is(made.status, 0, made.stderr);
      const user = JSON.parse(made.stdout) as { email: string; admin: boolean; invite_url?: string };
      assert.equal([user.email, user.admin, user.invite_url], ["root@corp.example", true, undefined]);
      const session = await signInUser(server, "root@corp.example", PASSWORD);
      assert.is(session.status, 303, session.text.slice(0, 200));
      assert.match((await getPage(server.url, "/", session.cookie)).text, "Create a project", "an instance admin");
      assert.not.match((await getPage(server.url, "/", "")).text, `id="first-admin"`, "a user exists: the hint is gone");

      const invited = await hcd(["user", "create", "--url", server.url, "--email", "second@corp.example"], env, null);
      assert.is(invited.status, 0, invited.stderr);
      const second = JSON.parse(invited.stdout) as { admin: boolean; invite_url?: string };
      assert.is(second.admin, false);
      assert.match(second.invite_url ?? "", /\/invite\/[\w-]{43}$/);
      assert.is(
        (await hcd(["user", "create", "--url", server.url, "--email", "short@corp.example"], env, "short\n")).status,
        1,
        "a short password is refused",
      );
    } finally {
      assert.is(await stopServer(server), 0, server.output());
    }

    // on the stopped DATA_DIR, as on a fresh install before the first start
    const offline = await hcd(["user", "create", "--email", "third@corp.example", "--admin"], env, PASSWORD);
    assert.is(offline.status, 0, offline.stderr);
    const stored = readFileSync(join(dir.path, "accounts.json"), "utf8");
    assert.ok(!stored.includes(PASSWORD), "only the password's hash is kept");
    // at the cost PASSWORD_HASH_N gives, by the server and by the CLI on the stopped DATA_DIR alike
    const costs = (JSON.parse(stored) as { users: { email: string; passwordHash: string | null }[] }).users.map((u) => [
      u.email,
      u.passwordHash?.split("$")[1] ?? null,
    ]);
    assert.equal(costs, [
      ["root@corp.example", "1024"],
      ["second@corp.example", null],
      ["third@corp.example", "1024"],
    ]);
    server = await startServer({ dataDir: dir.path, env });
    try {
      assert.not.match(server.output(), "no users yet");
      assert.is((await signInUser(server, "third@corp.example", PASSWORD)).status, 303);
    } finally {
      assert.is(await stopServer(server), 0, server.output());
    }
  } finally {
    dir.remove();
  }
});

test("user create takes no password argument and needs --email", async () => {
  const dir = tempDir();
  try {
    assert.is(
      (await hcd(["user", "create", "--email", "x@corp.example", "--password", "given on the line"], { DATA_DIR: dir.path }, null)).status,
      2,
    );
    assert.is((await hcd(["user", "create", "--admin"], { DATA_DIR: dir.path }, null)).status, 2);
  } finally {
    dir.remove();
  }
});

test.run();
