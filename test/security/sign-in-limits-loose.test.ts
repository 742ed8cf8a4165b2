// The looser sign-in limits against a real server (a file of its own: a hundred password hashes): 100
// failures of one email spread over ten addresses block that email from every address, and no other email;
// and, over SignInLimits itself, 100 failures of one address over many emails block that address.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "./real-server.ts";
import { call, ok, startServer, stopServer } from "./real-server.ts";
import { signInUser, statusCounts } from "./form-client.ts";
import { MemorySignInStore } from "../../host/sign-in-store.ts";
import { SIGN_IN_FAILURES_LOOSE, SignInLimits, signInKeys } from "../../http/dashboard/sign-in-limits.ts";

const TOKEN = "sign-in-loose-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "summer2026!!x-long";

const dir = tempDir();
let server: RealServer;
let users = 0;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

async function newUser(): Promise<string> {
  const email = `loose${++users}@corp.example`;
  await ok(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }));
  return email;
}

test("more loosely per email: 100 failures from ten addresses block every address for that email", async () => {
  const email = await newUser();
  for (let a = 0; a < 10; a++) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => signInUser(server, email, `spread guess ${a}-${i}`, `127.0.2.${a + 1}`)),
    );
    assert.equal(statusCounts(answers), { 401: 10 }, `address ${a}`);
  }
  assert.is((await signInUser(server, email, PASSWORD, "127.0.2.100")).status, 429);
  const other = await newUser(); // another email is not touched by it
  assert.is((await signInUser(server, other, PASSWORD, "127.0.2.100")).status, 303);
});

test("more loosely per address: 100 failures of one address over many emails block it for any email, not others", async () => {
  const limits = new SignInLimits(new MemorySignInStore());
  const at = Date.UTC(2026, 0, 15);
  for (let i = 0; i < SIGN_IN_FAILURES_LOOSE; i++)
    assert.ok(await limits.attempt(signInKeys(`sprayed${i}@corp.example`, "10.0.0.1"), at + i), `attempt ${i}`);
  assert.is(await limits.attempt(signInKeys("victim@corp.example", "10.0.0.1"), at + 200), null, "that address, any email");
  assert.ok(await limits.attempt(signInKeys("victim@corp.example", "10.0.0.2"), at + 200), "another address");
  assert.ok(
    await limits.attempt(signInKeys("victim@corp.example", "10.0.0.1"), at + 15 * 60_000 + 1),
    "the oldest failures 15 minutes old",
  );
});

test.run();
