// "Sign in with SSO" callbacks that were tampered with, replayed or arrive without their started sign-in,
// against a real hcd process and a real OpenID Connect provider (oidc-provider) on loopback: the provider's
// pages are walked with plain fetch up to its redirect back to hcd, and the tests open that URL themselves.
// Each refusal is a plain 400 page and no session.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ssoRig, startSignIn, throughProvider } from "../dashboard/oidc-provider-rig.ts";
import type { RealServer } from "../security/real-server.ts";

const TOKEN = "sso-callbacks-admin-token-0123456789";
const CLIENT_SECRET = "sso-callbacks-client-secret-0123456789";
const UNKNOWN = /This sign-in is unknown, already used or expired/;
const UNVERIFIED = /could not be verified/;

const sso = ssoRig(
  {
    ann: { email: "ann@example.com", email_verified: true },
    mallory: { email: "mallory@example.com", email_verified: true },
  },
  { token: TOKEN, clientSecret: CLIENT_SECRET, users: ["ann@example.com", "mallory@example.com"] },
);
let server: RealServer;
test.before(() => {
  ({ server } = sso());
});

/** Opens a callback URL in a browser whose cookies are `cookie`: the status, the page and the session cookie set, if any. */
async function callback(url: URL | string, cookie: string | null) {
  const response = await fetch(url, { redirect: "manual", headers: cookie === null ? {} : { cookie } });
  const session =
    response.headers
      .getSetCookie()
      .find((c) => /^hcd_session=[^;]/.test(c))
      ?.split(";")[0] ?? null;
  return { status: response.status, page: await response.text(), session };
}

/** Whose dashboard a session cookie opens: the signed-in email on the account page, or null when it opens none. */
async function signedInAs(session: string): Promise<string | null> {
  const response = await fetch(`${server.url}/account`, { redirect: "manual", headers: { cookie: session } });
  if (response.status !== 200) return null;
  return /[\w.]+@example\.com/.exec(await response.text())?.[0] ?? null;
}

/** A sign-in started in one browser and taken through the provider as `login`: its callback URL and the browser's state cookie. */
async function signInUpToCallback(login: string) {
  const started = await startSignIn(server.url);
  return { url: await throughProvider(started.providerUrl, login), stateCookie: started.stateCookie };
}

test("the callback as the provider sent it signs in once; the same URL a second time is refused", async () => {
  const { url, stateCookie } = await signInUpToCallback("ann");
  const first = await callback(url, stateCookie);
  assert.is(first.status, 200, first.page);
  assert.ok(first.session !== null, "a session cookie");
  assert.is(await signedInAs(first.session ?? ""), "ann@example.com");

  const again = await callback(url, stateCookie);
  assert.is(again.status, 400);
  assert.match(again.page, UNKNOWN);
  assert.is(again.session, null, "no session the second time");
});

test("a callback without the browser's state cookie is refused, and so is one whose cookie belongs to another sign-in", async () => {
  const victim = await startSignIn(server.url); // started in the victim's browser, never finished
  const { url } = await signInUpToCallback("mallory"); // finished at the provider in mallory's browser
  const bare = await callback(url, null);
  assert.is(bare.status, 400);
  assert.match(bare.page, UNKNOWN);
  assert.is(bare.session, null);

  const { url: other } = await signInUpToCallback("mallory");
  const crossed = await callback(other, victim.stateCookie);
  assert.is(crossed.status, 400);
  assert.match(crossed.page, UNKNOWN);
  assert.is(crossed.session, null, "mallory's sign-in does not land in the victim's browser");
});

test("a callback whose state was changed is refused", async () => {
  const { url, stateCookie } = await signInUpToCallback("ann");
  const changed = new URL(url);
  changed.searchParams.set("state", "a-state-this-server-never-started");
  const answer = await callback(changed, stateCookie);
  assert.is(answer.status, 400);
  assert.match(answer.page, UNKNOWN);
  assert.is(answer.session, null);
});

test("a callback whose code was swapped for another sign-in's code is refused (PKCE and nonce belong to the started one)", async () => {
  const { url, stateCookie } = await signInUpToCallback("ann");
  const { url: mallorys } = await signInUpToCallback("mallory");
  const swapped = new URL(url);
  swapped.searchParams.set("code", mallorys.searchParams.get("code") ?? "");
  const answer = await callback(swapped, stateCookie);
  assert.is(answer.status, 400);
  assert.match(answer.page, UNVERIFIED);
  assert.is(answer.session, null);

  const fresh = await signInUpToCallback("ann"); // and a code the provider never issued
  const madeUpUrl = new URL(fresh.url);
  madeUpUrl.searchParams.set("code", "a-code-nobody-issued");
  const madeUp = await callback(madeUpUrl, fresh.stateCookie);
  assert.is(madeUp.status, 400);
  assert.match(madeUp.page, UNVERIFIED);
  assert.is(madeUp.session, null);
});

test("an ID token whose nonce is not the started sign-in's is refused", async () => {
  const started = await startSignIn(server.url);
  const request = new URL(started.providerUrl);
  request.searchParams.set("nonce", "a-nonce-of-someone-elses-choosing"); // the authorization request altered on its way
  const url = await throughProvider(request.href, "ann");
  const answer = await callback(url, started.stateCookie);
  assert.is(answer.status, 400);
  assert.match(answer.page, UNVERIFIED);
  assert.is(answer.session, null);
});

test.run();
