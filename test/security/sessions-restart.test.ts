// Dashboard sessions survive a restart of a real server (DATA_DIR/sessions.json), kept by the SHA-256 of
// their id, never the cookie's value; a sign-out, a user's removal and a password change still end them,
// across the restart too.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "./real-server.ts";
import { call, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "sessions-restart-token-0123456789ab";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a session's long password";

const idOf = (cookie: string) => cookie.slice("hcd_session=".length);
const signedIn = async (server: RealServer, cookie: string) => (await getPage(server.url, "/account", cookie)).status === 200;

test("a session goes on after a restart; sign-out, removal and a new password end theirs, restart or not", async () => {
  const dir = tempDir();
  const env = { ADMIN_TOKEN: TOKEN };
  let server = await startServer({ dataDir: dir.path, env });
  try {
    const users: Record<string, string> = {};
    for (const name of ["stays", "leaves", "removed", "changes"]) {
      users[name] = (
        await ok<{ id: string }>(
          call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: `${name}@corp.example`, password: PASSWORD } }),
        )
      ).id;
    }
    const cookie: Record<string, string> = {};
    for (const name of Object.keys(users)) cookie[name] = (await signInUser(server, `${name}@corp.example`, PASSWORD)).cookie;
    const other = (await signInUser(server, "changes@corp.example", PASSWORD)).cookie; // a second session, ended by the password change
    const adminCookie = await signInKey(server.url, TOKEN);
    for (const name of Object.keys(cookie)) assert.ok(await signedIn(server, cookie[name]), name);

    const stored = readFileSync(join(dir.path, "sessions.json"), "utf8");
    for (const c of [...Object.values(cookie), other, adminCookie]) {
      assert.not.ok(stored.includes(idOf(c)), "the file never holds a session's id");
      assert.ok(stored.includes(createHash("sha256").update(idOf(c)).digest("hex")), "it holds the id's SHA-256");
    }
    assert.is(statSync(join(dir.path, "sessions.json")).mode & 0o777, 0o600);

    // before the restart: a sign-out and a removal
    const out = await postForm(server.url, "/signout", { csrf: await csrfOf(server.url, cookie.leaves) }, { cookie: cookie.leaves });
    assert.is(out.status, 303);
    assert.is((await call(server.url, "DELETE", `/admin/v1/users/${users.removed}`, { headers: admin })).status, 204);

    assert.is(await stopServer(server), 0, server.output());
    server = await startServer({ dataDir: dir.path, env });

    assert.ok(await signedIn(server, cookie.stays), "the same cookie works after the restart");
    assert.match((await getPage(server.url, "/account", cookie.stays)).text, "stays@corp.example");
    assert.is((await getPage(server.url, "/", adminCookie)).status, 200);
    assert.match((await getPage(server.url, "/", adminCookie)).text, "Create a project", "the admin token's session too");
    assert.not.ok(await signedIn(server, cookie.leaves), "signed out before the restart");
    assert.not.ok(await signedIn(server, cookie.removed), "removed before the restart");

    // after the restart: a new password ends the user's other session, also across the next restart
    assert.ok(await signedIn(server, other));
    const changed = await postForm(
      server.url,
      "/account/password",
      {
        csrf: await csrfOf(server.url, cookie.changes),
        current: PASSWORD,
        password: "a new long password",
        confirm: "a new long password",
      },
      { cookie: cookie.changes },
    );
    assert.ok(changed.status === 303 || changed.status === 200, `${changed.status} ${changed.text.slice(0, 200)}`);
    assert.not.ok(await signedIn(server, other), "the other session ended");
    assert.is(await stopServer(server), 0, server.output());
    server = await startServer({ dataDir: dir.path, env });
    assert.not.ok(await signedIn(server, other), "and stays ended after a restart");
    assert.ok(await signedIn(server, cookie.stays));
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
