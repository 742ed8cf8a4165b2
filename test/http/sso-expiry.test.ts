// A started "Sign in with SSO" is taken back within 10 minutes only (http/dashboard/oidc-routes.ts), on the
// dashboard's own clock, injected here: a callback at 10 minutes less a millisecond signs in, one at 10
// minutes is refused. A real OpenID Connect provider (oidc-provider) on loopback; hcd in-process.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Millis } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import type { OidcProviderRig } from "../dashboard/oidc-provider-rig.ts";
import { startOidcProvider, throughProvider } from "../dashboard/oidc-provider-rig.ts";
import type { Api } from "./harness.ts";
import { ADMIN_TOKEN, withApi } from "./harness.ts";

const CLIENT_SECRET = "sso-expiry-client-secret-0123456789";
/** hcd's SITE_ROOT: the provider sends the browser back there; the test hands that URL to the app itself. */
const SITE = "http://localhost:8000";
const REFUSED = /This sign-in is unknown, already used or expired/;

/** The provider and hcd (its dashboard on a clock that reads `clock.now`), a user ann@example.com, for `body`. */
async function withSso(body: (api: Api, clock: { now: Millis }) => Promise<void>): Promise<void> {
  const provider: OidcProviderRig = await startOidcProvider({ ann: { email: "ann@example.com", email_verified: true } });
  provider.configure(SITE, "hcd", CLIENT_SECRET);
  const clock = { now: Date.now() };
  try {
    await withApi(
      async (api) => {
        const made = await api.admin("POST", "/admin/v1/users", { email: "ann@example.com", password: "a long enough password" });
        assert.is(made.status, 201, made.text);
        await body(api, clock);
      },
      {
        sessionClock: { kind: "real", now: () => clock.now },
        env: { SITE_ROOT: SITE, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: "hcd", OIDC_CLIENT_SECRET: CLIENT_SECRET, ADMIN_TOKEN },
      },
    );
  } finally {
    await provider.close();
  }
}

/** Presses "Sign in with SSO" and goes through the provider as ann: the callback path and the browser's state cookie. */
async function startedSignIn(api: Api): Promise<{ callback: string; cookie: string }> {
  const started = await api.call("POST", "/signin/oidc", { key: null });
  assert.is(started.status, 200, started.text);
  const providerUrl = /content="0;url=([^"]+)"/.exec(started.text)?.[1]?.replaceAll("&amp;", "&");
  const cookie = started.headers
    .getSetCookie()
    .find((c) => c.startsWith("hcd_oidc="))
    ?.split(";")[0];
  assert.ok(providerUrl !== undefined && cookie !== undefined, started.text);
  const back = await throughProvider(providerUrl, "ann");
  assert.is(back.origin, SITE);
  return { callback: back.pathname + back.search, cookie };
}

/** Opens the callback with the state cookie: its status, page, and whether it opened a session. */
async function callback(api: Api, started: { callback: string; cookie: string }) {
  const answer = await api.call("GET", started.callback, { key: null, headers: { cookie: started.cookie } });
  return { status: answer.status, page: answer.text, session: answer.headers.getSetCookie().some((c) => /^hcd_session=[^;]/.test(c)) };
}

test("a callback 10 minutes less a millisecond after the start signs in", async () => {
  await withSso(async (api, clock) => {
    const started = await startedSignIn(api);
    clock.now += 10 * MINUTE - 1;
    const answer = await callback(api, started);
    assert.is(answer.status, 200, answer.page);
    assert.ok(answer.session, "a session opened");
  });
});

test("a callback 10 minutes after the start is refused, and opens no session", async () => {
  await withSso(async (api, clock) => {
    const started = await startedSignIn(api);
    clock.now += 10 * MINUTE;
    const answer = await callback(api, started);
    assert.is(answer.status, 400);
    assert.match(answer.page, REFUSED);
    assert.not.ok(answer.session);
  });
});

test.run();
