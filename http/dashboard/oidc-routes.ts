// "Sign in with SSO": POST /signin/oidc starts an OpenID Connect sign-in (host/oidc.ts), and
// /signin/oidc/callback opens a session for the user whose email the provider has verified. A callback
// is taken once: its state must be one this server started, not used yet, younger than 10 minutes, and
// the one in this browser's cookie (so nobody can finish a sign-in they started in someone else's browser).
// A verified email no user has is refused, or makes its user when OIDC_DEFAULT_ROLE is set (the role given
// is recorded in its project's audit log). A user who turned on hcd's own second factor is asked its code.
import type { H3Event } from "h3";
import { deleteCookie, getCookie, setCookie } from "h3";
import { MINUTE } from "../../engine/model.ts";
import type { OidcSettings, OidcStart } from "../../host/oidc.ts";
import { OidcClient, verifiedEmailOf } from "../../host/oidc.ts";
import { log } from "../../host/log.ts";
import type { AccountRouteDeps } from "./account-routes.ts";
import { newUserSession } from "./account-routes.ts";
import { codePage } from "./account-pages.ts";
import { recordAccountEvent } from "./audit-routes.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";
import { randomBytes } from "node:crypto";
import type { DashboardContext } from "./context.ts";
import { html } from "./html.ts";
import { errorPage } from "./pages.ts";
import { documentOf } from "./page-frame.ts";
import { htmlResponse } from "./responses.ts";

const STATE_COOKIE = "hcd_oidc";
const START_MS = 10 * MINUTE;

/** Registers the SSO routes for the provider in `settings`. */
export function oidcRoutes(ctx: DashboardContext, deps: AccountRouteDeps, settings: OidcSettings): void {
  const { route } = ctx;
  const { accounts, realClock, secureCookie } = deps;
  const oidc = new OidcClient(settings, `${ctx.deps.config.siteRoot}/signin/oidc/callback`);
  const started = deps.signInStore; // by state: in memory, or shared by a cluster's nodes
  // Lax: it must come back with the provider's redirect; only for the sign-in's own paths
  const stateAttributes = { path: "/signin/oidc", httpOnly: true, sameSite: "lax", secure: secureCookie } as const;
  const endState = (event: H3Event) => deleteCookie(event, STATE_COOKIE, stateAttributes);
  const refused = (event: H3Event, status: 400 | 403 | 502, message: string) => {
    endState(event);
    return htmlResponse(errorPage(null, status, message), status);
  };

  // a POST from the sign-in page (the route checks its origin); the answer moves on to the provider with a
  // meta refresh, as the pages' Content-Security-Policy (form-action 'self') forbids a form redirecting away
  route("POST", "/signin/oidc", async (event) => {
    let start: OidcStart;
    try {
      start = await oidc.start();
    } catch (error) {
      log.warn({ err: error }, "OIDC discovery failed");
      return refused(event, 502, "The identity provider can't be reached: try again later.");
    }
    await started.putSsoStart({ ...start, expiresAt: realClock.now() + START_MS });
    setCookie(event, STATE_COOKIE, start.state, { ...stateAttributes, maxAge: Math.floor(START_MS / 1000) });
    return htmlResponse(continuePage("Continue to your identity provider", start.url));
  });

  route("GET", "/signin/oidc/callback", async (event) => {
    const state = event.url.searchParams.get("state") ?? "";
    const start = await started.takeSsoStart(state); // one use, whatever happens next
    const now = realClock.now();
    if (start === null || start.expiresAt <= now || getCookie(event, STATE_COOKIE) !== state) {
      return refused(event, 400, "This sign-in is unknown, already used or expired: sign in again.");
    }
    let claims: Record<string, unknown>;
    try {
      claims = await oidc.finish(new URL(`${ctx.deps.config.siteRoot}/signin/oidc/callback${event.url.search}`), start);
    } catch (error) {
      log.warn({ err: error }, "OIDC sign-in refused");
      return refused(event, 400, "The identity provider's answer could not be verified: sign in again.");
    }
    const email = verifiedEmailOf(claims);
    if (!email.ok) return refused(event, 403, email.reason);
    const found = await accounts.userOfEmail(email.email, settings.newUsers, now); // made on first sign-in when OIDC_DEFAULT_ROLE says so
    if (found === null) return refused(event, 403, "No account has this email address: ask an administrator to invite you.");
    const { user, granted } = found;
    if (granted !== null) {
      // OIDC_DEFAULT_ROLE gave a role: recorded in its project
      await recordChange(ctx.deps.audit, {
        projectId: granted.projectId,
        actor: { kind: "system", name: "OIDC_DEFAULT_ROLE" },
        action: "member.role_set",
        target: auditTarget.member(user, granted.role),
        at: ctx.deps.clock.now(),
      });
    }
    if (accounts.hasSecondFactor(user.id)) {
      // the user turned on hcd's own second factor: asked here too, as after a password
      const id = randomBytes(32).toString("base64url");
      await deps.signInStore.putPending(id, { userId: user.id, email: user.email, expiresAt: now + 5 * MINUTE });
      endState(event);
      return htmlResponse(codePage({ pending: id, error: null }));
    }
    await recordAccountEvent(ctx, "account.signed_in", user, `by single sign-on from ${deps.clientAddressOf(event)}`);
    endState(event);
    await newUserSession(event, deps, user, now);
    // a page rather than a redirect: after the provider's cross-site redirect, the SameSite=Strict session
    // cookie is sent only from a navigation this site starts
    return htmlResponse(continuePage("Signed in", "/"));
  });
}

/** A page that moves on to `url` at once (and a link, should the browser not). */
function continuePage(title: string, url: string): string {
  return documentOf({
    title,
    viewer: null,
    body: html`<meta http-equiv="refresh" content="0;url=${url}"><p><a href="${url}">${title}</a></p>`,
  });
}
