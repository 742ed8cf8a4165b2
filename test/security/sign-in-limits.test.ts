// The sign-in limits against a real server: the failure budget is taken before a password is checked, so
// a burst of 200 guesses at once checks at most 10; failures are counted per (email, client address), so a
// stranger's ten wrong passwords do not lock the user out from elsewhere (the looser limits per email and per
// address: sign-in-limits-loose.test.ts); behind a reverse proxy named in TRUSTED_PROXIES, the client's
// address is the one the proxy saw.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "./real-server.ts";
import { call, ok, startServer, stopServer } from "./real-server.ts";
import { postForm, signInUser, statusCounts } from "./form-client.ts";

const TOKEN = "sign-in-limits-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "summer2026!!x-long";

const dir = tempDir();
let server: RealServer;
let users = 0;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, TRUSTED_PROXIES: "127.0.0.9, 127.0.1.0/24" } });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

async function newUser(): Promise<string> {
  const email = `target${++users}@corp.example`;
  await ok(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }));
  return email;
}

test("200 guesses at once check at most 10 passwords, the right one among them or not", async () => {
  const email = await newUser();
  const guesses = [...Array.from({ length: 199 }, (_, i) => `wrong-guess-${i}-xxxx`), PASSWORD];
  const answers = await Promise.all(guesses.map((password) => signInUser(server, email, password, "127.0.0.50")));
  const counts = statusCounts(answers);
  const checked = (counts[401] ?? 0) + (counts[303] ?? 0);
  assert.ok(checked <= 10, `passwords checked: ${JSON.stringify(counts)}`);
  assert.is(counts[429] ?? 0, 200 - checked, JSON.stringify(counts));
  assert.ok(checked >= 1, `the budget was used: ${JSON.stringify(counts)}`);
});

test("a stranger's ten wrong passwords lock only their own address out: the user signs in from another, in any letter case", async () => {
  const email = await newUser();
  for (let i = 0; i < 10; i++) assert.is((await signInUser(server, email, `stranger guess ${i}`, "127.0.0.200")).status, 401);
  assert.is((await signInUser(server, email, PASSWORD, "127.0.0.200")).status, 429, "the stranger's address is blocked for this email");
  assert.is((await signInUser(server, ` ${email.toUpperCase()} `, PASSWORD, "127.0.0.200")).status, 429, "in any letter case");
  const fromElsewhere = await signInUser(server, email.toUpperCase(), PASSWORD, "127.0.0.201");
  assert.is(fromElsewhere.status, 303, fromElsewhere.text.slice(0, 300));
});

test("behind a trusted reverse proxy the client's address counts, not the proxy's; a forged X-Forwarded-For from elsewhere is not believed", async () => {
  const email = await newUser();
  const viaProxy = (password: string, client: string, proxy = "127.0.0.9") =>
    postForm(server.url, "/signin/password", { email, password }, { from: proxy, headers: { "x-forwarded-for": `${client}, 127.0.1.7` } });
  for (let i = 0; i < 10; i++)
    assert.is((await viaProxy(`wrong ${i}`, "203.0.113.5", i % 2 === 0 ? "127.0.0.9" : "127.0.1.7")).status, 401);
  assert.is((await viaProxy(PASSWORD, "203.0.113.5")).status, 429, "the client behind the proxy is blocked");
  assert.is((await viaProxy(PASSWORD, "203.0.113.6")).status, 303, "another client behind the same proxy is not");
  // not a trusted proxy: its X-Forwarded-For is the client's own text, and its own address is what counts
  const forged = (password: string, client: string) =>
    postForm(server.url, "/signin/password", { email, password }, { from: "127.0.0.60", headers: { "x-forwarded-for": client } });
  for (let i = 0; i < 10; i++) assert.is((await forged(`forged ${i}`, `198.51.100.${i}`)).status, 401);
  assert.is((await forged(PASSWORD, "198.51.100.200")).status, 429, "a new forged address each time changes nothing");
});

test.run();
