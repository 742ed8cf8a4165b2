// Users in the dashboard: sign-in by email and password (rate limited per account and per address, one
// answer for an unknown email and a wrong password) and its second factor, the account page with every
// session and a "Sign out" for each, the email, the password and the second factor, deleting the account,
// and the password reset by email
// (host/accounts.ts keeps the users; invite-routes.ts takes the links).
import { REPORT_CHOICES, reportChoiceOf, withReports } from "../../host/report-claims.ts";
import type { H3Event } from "h3";
import type { Accounts, User } from "../../host/accounts.ts";
import type { Clock } from "../../host/clock.ts";
import type { Millis } from "../../engine/model.ts";
import { httpError, sentenceOf } from "../errors.ts";
import { accountPage, codePage, resetPage } from "./account-pages.ts";
import { newSecret, secretUri } from "../../host/second-factor.ts";
import { randomBytes } from "node:crypto";
import { MINUTE } from "../../engine/model.ts";
import { log } from "../../host/log.ts";
import type { DashboardContext } from "./context.ts";
import { errorPage, signInPage } from "./pages.ts";
import type { Viewer } from "./page-frame.ts";
import { endSessionCookie, formOf, htmlResponse, nextPage, redirect, setSessionCookie, SignInNeeded } from "./responses.ts";
import type { Session, SessionStore } from "./sessions.ts";
import { csrfMatches, SESSION_IDLE_MS, sessionHandle } from "./sessions.ts";
import { SIGN_IN_FAILURES, SignInLimits, signInKeys } from "./sign-in-limits.ts";
import { recordAccountEvent } from "./audit-routes.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";
import type { SignInStore } from "../../host/sign-in-store.ts";

/** The otpauth:// URI as a QR code for an authenticator app to scan: an inline SVG (no request, no script, no inline style). */
async function qrSvg(uri: string): Promise<string> {
  const { default: QRCode } = await import("qrcode"); // loaded when a second factor is set up, not at start
  return QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2, width: 200 });
}

/** How recent a session must be to change the sign-in of a user who has no password (a single sign-on user). */
const RECENT_SIGN_IN_MS = 10 * MINUTE;

export type AccountRouteDeps = {
  readonly accounts: Accounts;
  readonly sessions: SessionStore;
  /** Real time, whatever CLOCK says: session expiry, sign-in windows, invitation expiry. */
  readonly realClock: Clock;
  readonly secureCookie: boolean;
  /** Shares a session opened here with the other nodes (cluster mode), and ends one everywhere. */
  readonly share: (session: Session, at: Millis) => Promise<void>;
  /** Failed sign-ins and sign-ins waiting for their second factor (shared by every node of a cluster). */
  readonly signInStore: SignInStore;
  readonly unshare: (id: string) => Promise<void>;
  /** The session of the request when a user who still exists opened it, or null. */
  readonly signedInUser: (event: H3Event) => { readonly session: Session; readonly user: User } | null;
  /** The client's address as the sign-in limits count it (http/client-address.ts). */
  readonly clientAddressOf: (event: H3Event) => string;
};

/** A new session of the user (always a new id: no session fixation), under their current session generation, shared with the other nodes, its cookie set on the answer to `event`. */
export async function newUserSession(event: H3Event, deps: AccountRouteDeps, user: User, at: Millis): Promise<Session> {
  const session = deps.sessions.open({ kind: "user", userId: user.id, generation: deps.accounts.sessionGeneration(user.id) ?? 0 }, at);
  await deps.share(session, at);
  setSessionCookie(event, session.id, { maxAgeMs: SESSION_IDLE_MS, secure: deps.secureCookie });
  return session;
}

/** Tells the user's old address (when hcd sends mail) that their email is now `next`. */
export function tellOldAddress(ctx: DashboardContext, old: string, next: string): void {
  const { sendUserMail, config } = ctx.deps;
  void sendUserMail?.(
    old,
    "Your hcd email was changed",
    `The email of your hcd account (${config.siteRoot}) is now ${next}.\n\nIf you did not change it, ask your hcd administrator to look into it.\n`,
  ).catch(() => false);
}

/** Registers the routes of users' sign-in, account page, password reset. */
export function accountRoutes(ctx: DashboardContext, deps: AccountRouteDeps): void {
  const { route } = ctx;
  const { accounts, sessions, realClock, secureCookie } = deps;
  const { sendUserMail, config } = ctx.deps;
  const limits = new SignInLimits(deps.signInStore);
  // sign-ins whose password was right and whose second factor is still to come: a random id (in the code
  // form, never in a URL) → the user, for 5 minutes
  const pending = deps.signInStore;
  const TOO_MANY = "Too many failed sign-ins: wait 15 minutes and try again.";
  const signIn = (error: string) => signInPage(error, { reset: sendUserMail !== undefined, sso: Boolean(config.oidc) });

  const openSession = async (event: H3Event, user: User, at: Millis, next = "/") => {
    await newUserSession(event, deps, user, at);
    return redirect(nextPage(next));
  };
  /** After a change that ended every session of the user (a new generation): this browser's ends too, and a new one takes its place. */
  const reopened = async (event: H3Event, found: ReturnType<typeof requireUser>) => {
    sessions.close(found.session.id);
    await deps.unshare(found.session.id);
    const session = await newUserSession(event, deps, found.user, realClock.now());
    return { found: { ...found, session, viewer: { ...found.viewer, csrf: session.csrf } } };
  };

  route("POST", "/signin/password", async (event) => {
    const form = await formOf(event);
    const email = (form.get("email") ?? "").trim().toLowerCase();
    const now = realClock.now();
    const address = deps.clientAddressOf(event);
    const attempt = await limits.attempt(signInKeys(email, address), now); // counted before the password is checked
    if (attempt === null) return htmlResponse(signIn(TOO_MANY), 429);
    const user = await accounts.signIn(email, form.get("password") ?? "");
    if (user === null) {
      // the same answer for an email without an account
      await recordAccountEvent(ctx, "account.sign_in_failed", { email, id: accounts.userIdOfEmail(email) }, `by password from ${address}`);
      return htmlResponse(signIn("Wrong email or password."), 401);
    }
    await attempt.succeeded();
    if (accounts.hasSecondFactor(user.id)) {
      const id = randomBytes(32).toString("base64url");
      await pending.putPending(id, { userId: user.id, email: user.email, expiresAt: now + 5 * MINUTE });
      return htmlResponse(codePage({ pending: id, error: null, next: nextPage(form.get("next")) }));
    }
    await recordAccountEvent(ctx, "account.signed_in", user, `by password from ${address}`);
    return openSession(event, user, now, nextPage(form.get("next")));
  });

  route("POST", "/signin/code", async (event) => {
    const form = await formOf(event);
    const id = form.get("pending") ?? "";
    const now = realClock.now();
    const waiting = await pending.pending(id);
    if (waiting === null || waiting.expiresAt <= now) {
      await pending.dropPending(id);
      return htmlResponse(signIn("The sign-in took too long or was already used: sign in again."), 401);
    }
    const address = deps.clientAddressOf(event);
    const attempt = await limits.attempt(signInKeys(waiting.email, address), now); // the same counts as passwords
    if (attempt === null) return htmlResponse(signIn(TOO_MANY), 429);
    if (!(await accounts.checkSecondFactor(waiting.userId, form.get("code") ?? "", now))) {
      await recordAccountEvent(ctx, "account.sign_in_failed", { email: waiting.email, id: waiting.userId }, `by code from ${address}`);
      return htmlResponse(codePage({ pending: id, error: "Wrong code.", next: nextPage(form.get("next")) }), 401);
    }
    await attempt.succeeded();
    await pending.dropPending(id);
    const user = accounts.userById(waiting.userId);
    if (user === null) return htmlResponse(signIn("Wrong email or password."), 401);
    await recordAccountEvent(ctx, "account.signed_in", user, `by a second factor's code from ${address}`);
    return openSession(event, user, now, nextPage(form.get("next")));
  });

  /** The user's sessions this node holds that are still in force (those of an older generation end on their next request). */
  const liveSessionsOf = (userId: string) => {
    const generation = accounts.sessionGeneration(userId);
    return sessions.ofUser(userId, realClock.now()).filter((s) => s.principal.kind === "user" && s.principal.generation === generation);
  };
  const requireUser = (event: H3Event) => {
    const found = deps.signedInUser(event);
    if (found === null) throw new SignInNeeded();
    const viewer: Viewer = { csrf: found.session.csrf, readonly: true, admin: false, user: { email: found.user.email, role: null } };
    return { ...found, viewer };
  };

  const accountHtml = async (
    found: ReturnType<typeof requireUser>,
    opts: {
      notice: string | null;
      error?: string | null;
      passwordError?: string | null;
      emailError?: string;
      deleteError?: string;
      recoveryCodes?: string[];
      secret?: string;
    },
  ) => {
    const { session, user, viewer } = found;
    const rows = liveSessionsOf(user.id).map((s) => ({
      handle: sessionHandle(s),
      openedAt: s.openedAt ?? null,
      current: s.id === session.id,
    }));
    const fresh = opts.secret === undefined ? newSecret(user.email) : { secret: opts.secret, uri: secretUri(user.email, opts.secret) };
    const secondFactor = accounts.hasSecondFactor(user.id)
      ? { on: true as const }
      : { on: false as const, ...fresh, qr: await qrSvg(fresh.uri) };
    const stored = accounts.storedUser(user.id);
    const reports = { choice: stored === null ? ("off" as const) : reportChoiceOf(stored), mailOn: sendUserMail !== undefined };
    return accountPage(viewer, {
      email: user.email,
      emailWaiting: accounts.emailChangeWaiting(user.id, realClock.now()),
      sessions: rows,
      secondFactor,
      hasPassword: accounts.hasPassword(user.id),
      reports,
      ...opts,
    });
  };

  route("GET", "/account", async (event) => {
    const found = requireUser(event);
    const done = event.url.searchParams.get("done");
    const notice =
      done === "signout"
        ? "Session signed out."
        : done === "email"
          ? `Your email is now ${found.user.email}. Every other session has been signed out.`
          : null;
    return htmlResponse(await accountHtml(found, { notice }));
  });

  const accountForm = async (event: H3Event) => {
    const found = requireUser(event);
    const form = await formOf(event);
    if (!csrfMatches(found.session, form.get("csrf")))
      throw httpError(403, "the form's security token is missing or stale: reload the page and try again");
    return { found, form };
  };
  /**
   * What a change of the account's sign-in asks besides the session: the password, when the user has one
   * (counted as a sign-in attempt); else a session opened within RECENT_SIGN_IN_MS (a single sign-on user).
   */
  const proven = async (event: H3Event, found: ReturnType<typeof requireUser>, password: string): Promise<string | null> => {
    const now = realClock.now();
    if (!accounts.hasPassword(found.user.id)) {
      return now - (found.session.openedAt ?? 0) <= RECENT_SIGN_IN_MS ? null : "Sign out and in again (within 10 minutes) to change this.";
    }
    const attempt = await limits.attempt(signInKeys(found.user.email, deps.clientAddressOf(event)), now);
    if (attempt === null) return TOO_MANY;
    if (!(await accounts.passwordMatches(found.user.id, password))) return "The password is wrong.";
    await attempt.succeeded();
    return null;
  };
  // turning the second factor on asks for the password (a stolen session must not enrol its own
  // authenticator), and ends every other session of the user
  route("POST", "/account/second-factor/on", async (event) => {
    const { found, form } = await accountForm(event);
    const secret = form.get("secret") ?? "";
    if (!/^[A-Z2-7]{16,64}$/.test(secret)) throw httpError(400, "the secret is not one this page made: reload the page");
    const refused = await proven(event, found, form.get("password") ?? "");
    if (refused !== null)
      return htmlResponse(await accountHtml(found, { notice: null, error: refused, secret }), refused === TOO_MANY ? 429 : 400);
    const enabled = await accounts.enableSecondFactor(found.user.id, secret, form.get("code") ?? "", realClock.now());
    if (!enabled.ok) return htmlResponse(await accountHtml(found, { notice: null, error: sentenceOf(enabled.failure), secret }), 400);
    await recordAccountEvent(ctx, "account.second_factor_on", found.user, `from ${deps.clientAddressOf(event)}`);
    const next = await reopened(event, found);
    return htmlResponse(
      await accountHtml(next.found, { notice: "Every other session has been signed out.", recoveryCodes: enabled.value }),
    );
  });
  route("POST", "/account/second-factor/off", async (event) => {
    const { found, form } = await accountForm(event);
    if (!(await accounts.checkSecondFactor(found.user.id, form.get("code") ?? "", realClock.now()))) {
      return htmlResponse(await accountHtml(found, { notice: null, error: "Wrong code: the second factor stays on." }), 400);
    }
    await accounts.disableSecondFactor(found.user.id);
    await recordAccountEvent(ctx, "account.second_factor_off", found.user, `from ${deps.clientAddressOf(event)}`);
    const next = await reopened(event, found);
    return htmlResponse(await accountHtml(next.found, { notice: "The second factor is off. Every other session has been signed out." }));
  });
  // a new password, with the current one: every other session of the user ends
  route("POST", "/account/password", async (event) => {
    const { found, form } = await accountForm(event);
    const attempt = await limits.attempt(signInKeys(found.user.email, deps.clientAddressOf(event)), realClock.now());
    if (attempt === null) return htmlResponse(await accountHtml(found, { notice: null, passwordError: TOO_MANY }), 429);
    const changed = await accounts.changePassword(found.user.id, form.get("current") ?? "", form.get("password") ?? "");
    const guessed = !changed.ok && changed.failure.code === "invalid" && changed.failure.field === "current";
    if (!guessed) await attempt.succeeded(); // only a wrong current password stays counted
    if (!changed.ok) return htmlResponse(await accountHtml(found, { notice: null, passwordError: sentenceOf(changed.failure) }), 400);
    await recordAccountEvent(ctx, "account.password_changed", found.user, `from ${deps.clientAddressOf(event)}`);
    const next = await reopened(event, found);
    return htmlResponse(await accountHtml(next.found, { notice: "Password changed. Every other session has been signed out." }));
  });

  // a new email, with the password (a single sign-on user's email is the identity provider's), one no other
  // user has: when hcd sends mail, it takes effect once the link mailed to it is followed (invite-routes.ts);
  // else at once. Then every other session ends, and the old address is told.
  route("POST", "/account/email", async (event) => {
    const { found, form } = await accountForm(event);
    const refusedAs = async (error: string, status = 400) =>
      htmlResponse(await accountHtml(found, { notice: null, emailError: error }), status);
    if (accounts.storedUser(found.user.id)?.sso === true)
      return refusedAs("Your account signs in through single sign-on: its email is the identity provider's.");
    const refused = await proven(event, found, form.get("password") ?? "");
    if (refused !== null) return refusedAs(refused, refused === TOO_MANY ? 429 : 400);
    if (sendUserMail !== undefined) {
      const now = realClock.now();
      // each mail goes to an address the user names: 10 in 15 minutes
      if ((await limits.attempt([{ key: `email-change:${found.user.id}`, limit: SIGN_IN_FAILURES }], now)) === null)
        return refusedAs("Too many email changes asked: wait 15 minutes and try again.", 429);
      const asked = await accounts.askEmailChange(found.user.id, form.get("email"), now);
      if (!asked.ok) return refusedAs(sentenceOf(asked.failure));
      const { email, token } = asked.value;
      const sent = await sendUserMail(
        email,
        "Confirm your new email for hcd",
        `The hcd account ${found.user.email} (${config.siteRoot}) asked to have this address as its email.\n\nOpen this link to confirm it (valid for one hour, once):\n\n${config.siteRoot}/invite/${token}\n\nIf you did not ask for it, ignore this message: nothing changes.\n`,
      ).catch(() => false);
      if (!sent) {
        log.warn({ user: found.user.id }, "email change confirmation not sent");
        return refusedAs(`The link could not be sent to ${email}: check the address, or try again later.`, 502);
      }
      return htmlResponse(
        await accountHtml(found, {
          notice: `A link to confirm ${email} is on its way to that address. Your email stays ${found.user.email} until the link is opened.`,
        }),
      );
    }
    const changed = await accounts.changeEmail(found.user.id, form.get("email"));
    if (!changed.ok) return refusedAs(sentenceOf(changed.failure));
    const user = accounts.userById(found.user.id) ?? found.user;
    await recordAccountEvent(ctx, "account.email_changed", user, `from ${changed.value.email}, from ${deps.clientAddressOf(event)}`);
    const next = await reopened(event, { ...found, user, viewer: { ...found.viewer, user: { email: user.email, role: null } } });
    return htmlResponse(
      await accountHtml(next.found, { notice: `Your email is now ${user.email}. Every other session has been signed out.` }),
    );
  });

  // deleting one's own account, with the password: refused while they are a project's only owner; every
  // session ends, and each project they had a role in records their leaving
  route("POST", "/account/delete", async (event) => {
    const { found, form } = await accountForm(event);
    const refusedAs = async (error: string, status = 400) =>
      htmlResponse(await accountHtml(found, { notice: null, deleteError: error }), status);
    const refused = await proven(event, found, form.get("password") ?? "");
    if (refused !== null) return refusedAs(refused, refused === TOO_MANY ? 429 : 400);
    const live = liveSessionsOf(found.user.id);
    const outcome = await accounts.deleteUser(found.user.id, { keepOwners: true });
    if (outcome === null) throw new SignInNeeded(); // removed meanwhile
    if ("lastOwnerOf" in outcome) {
      const names = outcome.lastOwnerOf.map((id) => ctx.deps.pool.listProjects().find((p) => p.id === id)?.name ?? id);
      return refusedAs(
        `You are the only owner of ${names.map((n) => JSON.stringify(n)).join(", ")}: make another member owner first (on the project's Members page), or ask an admin to delete the project.`,
      );
    }
    const at = ctx.deps.clock.now();
    await recordAccountEvent(ctx, "account.deleted", found.user, `from ${deps.clientAddressOf(event)}`);
    for (const { projectId } of outcome.removed) {
      await recordChange(ctx.deps.audit, {
        projectId,
        actor: { kind: "user", email: found.user.email },
        action: "member.removed",
        target: auditTarget.member(found.user, null),
        at,
      });
    }
    for (const session of [found.session, ...live]) {
      // here and on every node now (the others' also end on their next request)
      sessions.close(session.id);
      await deps.unshare(session.id);
    }
    endSessionCookie(event, secureCookie);
    return redirect("/");
  });

  // the user's email reports: off, weekly or monthly (host/report-claims.ts)
  route("POST", "/account/reports", async (event) => {
    const { found, form } = await accountForm(event);
    const choice = REPORT_CHOICES.find((c) => c === form.get("reports"));
    if (choice === undefined)
      return htmlResponse(await accountHtml(found, { notice: null, error: "Email reports must be off, weekly or monthly." }), 400);
    await accounts.updateUser(found.user.id, (user) => withReports(user, choice, ctx.deps.clock.now())); // hcd's clock: the periods a report covers
    return htmlResponse(await accountHtml(found, { notice: choice === "off" ? "Email reports are off." : `Email reports: ${choice}.` }));
  });

  route("POST", "/account/sessions/signout", async (event) => {
    const { session, user } = requireUser(event);
    const form = await formOf(event);
    if (!csrfMatches(session, form.get("csrf")))
      throw httpError(403, "the form's security token is missing or stale: reload the page and try again");
    const ended = liveSessionsOf(user.id).find((s) => sessionHandle(s) === form.get("session"));
    if (ended === undefined) throw httpError(404, "no such session (it may have ended already)");
    sessions.close(ended.id);
    await deps.unshare(ended.id);
    if (ended.id !== session.id) return redirect("/account?done=signout");
    endSessionCookie(event, secureCookie);
    return redirect("/");
  });

  // Password reset, only when SMTP_URL is set: the link goes to the user's email and nowhere else. The
  // answer is the same whether the email has an account or not, and comes before anything is looked up
  // or sent, so neither its words nor its time tell. Each address and each email may ask 10 times in 15 min.
  const RESET_SENT = "If an account has this email, a link to choose a new password is on its way (valid for one hour).";
  route("GET", "/reset", async () => {
    if (sendUserMail === undefined) return htmlResponse(errorPage(null, 404, "Password reset by email is off: SMTP_URL is not set."), 404);
    return htmlResponse(resetPage({ notice: null, error: null }));
  });
  route("POST", "/reset", async (event) => {
    if (sendUserMail === undefined) return htmlResponse(errorPage(null, 404, "Password reset by email is off: SMTP_URL is not set."), 404);
    const email = ((await formOf(event)).get("email") ?? "").trim().toLowerCase();
    const address = deps.clientAddressOf(event);
    const keys = [
      { key: `reset-address:${address}`, limit: SIGN_IN_FAILURES },
      { key: `reset-account:${email}`, limit: SIGN_IN_FAILURES },
    ];
    const now = realClock.now();
    if ((await limits.attempt(keys, now)) === null)
      return htmlResponse(resetPage({ notice: null, error: "Too many reset requests: wait 15 minutes and try again." }), 429); // every request counts
    void (async () => {
      const started = await accounts.startReset(email, now);
      if (started === null) return;
      const link = `${config.siteRoot}/invite/${started.token}`;
      const sent = await sendUserMail(
        started.user.email,
        "Choose a new password for hcd",
        `Open this link to choose a new password (valid for one hour, once):\n\n${link}\n\nIf you did not ask for it, ignore this message: your password stays as it is.\n`,
      );
      if (!sent) log.warn({ user: started.user.id }, "password reset email not sent");
    })().catch((error: unknown) => log.warn({ err: error }, "password reset failed"));
    return htmlResponse(resetPage({ notice: RESET_SENT, error: null }));
  });
}
