// The links of invitations, password resets and email changes (/invite/<token>), as host/invitations.ts rules:
// a reset, or an invitation that made its account, sets the password (asking the second factor's code first
// when the user has it on) and gives only its own role; any other invitation gives its role to its user
// signed in, who accepts it; an email change's link makes the new email the user's (host/email-change.ts),
// by a button. A role given is recorded in its project's audit log.
import type { H3Event } from "h3";
import { auditTarget, recordChange } from "../../host/audit.ts";
import { passwordProblem } from "../../host/accounts.ts";
import type { Grant as StoredGrant, User } from "../../host/accounts.ts";
import type { AccountRouteDeps } from "./account-routes.ts";
import { newUserSession, tellOldAddress } from "./account-routes.ts";
import { emailChangedPage, emailChangePage, grantPage, invitePage } from "./account-pages.ts";
import type { DashboardContext } from "./context.ts";
import { errorPage } from "./pages.ts";
import { formOf, htmlResponse, param, redirect } from "./responses.ts";
import { csrfMatches } from "./sessions.ts";
import { SignInLimits, signInKeys } from "./sign-in-limits.ts";
import { recordAccountEvent } from "./audit-routes.ts";

const NO_INVITATION = "This link is unknown, used or expired: ask for a new one.";

/** Registers GET and POST /invite/<token>. */
export function inviteRoutes(ctx: DashboardContext, deps: AccountRouteDeps): void {
  const { route } = ctx;
  const { accounts, realClock } = deps;
  const limits = new SignInLimits(deps.signInStore);
  const projectName = (grant: StoredGrant) => ctx.deps.pool.listProjects().find((p) => p.id === grant.projectId)?.name ?? grant.projectId;
  /** Records the role a link gave, in its project, by the user who used it. */
  const recordGrant = (user: User, grant: StoredGrant) =>
    recordChange(ctx.deps.audit, {
      projectId: grant.projectId,
      actor: { kind: "user", email: user.email },
      action: "member.accepted",
      target: auditTarget.member(user, grant.role),
      at: ctx.deps.clock.now(),
    });
  /** The link of the request, what it may do, and whether its user is the one signed in. */
  const linkOf = (event: H3Event) => {
    const token = param(event, "token");
    const link = accounts.link(token, realClock.now());
    const signedIn = deps.signedInUser(event);
    return { token, link, signedIn: link !== null && signedIn?.user.id === link.user.id ? signedIn : null };
  };
  const grantHtml = (
    found: NonNullable<ReturnType<typeof linkOf>["link"]>,
    grant: StoredGrant,
    signedIn: ReturnType<typeof linkOf>["signedIn"],
  ) =>
    grantPage(
      signedIn === null
        ? null
        : { csrf: signedIn.session.csrf, readonly: true, admin: false, user: { email: signedIn.user.email, role: null } },
      {
        email: found.user.email,
        role: grant.role,
        project: projectName(grant),
        state: signedIn !== null ? "accept" : accounts.hasJoined(found.user.id) ? "sign-in" : "not-set-up",
      },
    );

  /** Makes an email change's new address the user's: every session of theirs ends; this browser, when signed in as them, gets a new one. */
  const followEmailChange = async (
    event: H3Event,
    token: string,
    link: NonNullable<ReturnType<typeof linkOf>["link"]> & { newEmail: string },
    signedIn: ReturnType<typeof linkOf>["signedIn"],
  ) => {
    const followed = await accounts.followEmailChange(token, realClock.now());
    if (!followed.ok && followed.failure.code === "not_found") return htmlResponse(errorPage(null, 404, NO_INVITATION), 404);
    if (!followed.ok) {
      const error = "Another user has this email by now: nothing was changed. Ask for the change again with another email.";
      return htmlResponse(emailChangePage({ from: link.user.email, to: link.newEmail, error }), 409);
    }
    const { before, email } = followed.value;
    const user = accounts.userById(before.id) ?? { ...before, email };
    await recordAccountEvent(
      ctx,
      "account.email_changed",
      user,
      `from ${before.email}, by an emailed confirmation link from ${deps.clientAddressOf(event)}`,
    );
    tellOldAddress(ctx, before.email, email);
    if (signedIn === null) return htmlResponse(emailChangedPage(email));
    deps.sessions.close(signedIn.session.id);
    await deps.unshare(signedIn.session.id);
    await newUserSession(event, deps, user, realClock.now());
    return redirect("/account?done=email");
  };

  route("GET", "/invite/:token", async (event) => {
    const { link, signedIn } = linkOf(event);
    if (link === null) return htmlResponse(errorPage(null, 404, NO_INVITATION), 404);
    if (link.newEmail !== null) return htmlResponse(emailChangePage({ from: link.user.email, to: link.newEmail, error: null }));
    if (link.grant !== null && (link.kind === "grant-only" || signedIn !== null))
      return htmlResponse(grantHtml(link, link.grant, signedIn));
    return htmlResponse(invitePage({ email: link.user.email, error: null, code: accounts.hasSecondFactor(link.user.id) }));
  });

  route("POST", "/invite/:token", async (event) => {
    const { token, link, signedIn } = linkOf(event);
    const now = realClock.now();
    if (link === null) return htmlResponse(errorPage(null, 404, NO_INVITATION), 404);
    if (link.newEmail !== null) return followEmailChange(event, token, { ...link, newEmail: link.newEmail }, signedIn);
    const form = await formOf(event);
    if (link.grant !== null && signedIn !== null) {
      // its user, signed in, accepts the role
      if (!csrfMatches(signedIn.session, form.get("csrf")))
        return htmlResponse(errorPage(null, 403, "the form's security token is missing or stale: reload the page and try again"), 403);
      const grant = await accounts.acceptGrant(token, signedIn.user.id, now);
      if (grant === null) return htmlResponse(errorPage(null, 404, NO_INVITATION), 404);
      await recordGrant(signedIn.user, grant);
      return redirect(`/projects/${grant.projectId}/checks`);
    }
    if (link.kind === "grant-only" && link.grant !== null) return htmlResponse(grantHtml(link, link.grant, null), 403); // sets no password
    const password = form.get("password") ?? "";
    const code = accounts.hasSecondFactor(link.user.id);
    const again = (error: string, status: number) => htmlResponse(invitePage({ email: link.user.email, error, code }), status);
    const problem = passwordProblem(password);
    if (problem !== null) return again(problem, 400);
    if (code) {
      // the second factor is not only as strong as the mailbox: its code first, counted as a sign-in's
      const attempt = await limits.attempt(signInKeys(link.user.email, deps.clientAddressOf(event)), now);
      if (attempt === null) return again("Too many failed sign-ins: wait 15 minutes and try again.", 429);
      if (!(await accounts.checkSecondFactor(link.user.id, form.get("code") ?? "", now))) {
        await recordAccountEvent(
          ctx,
          "account.sign_in_failed",
          link.user,
          `by code on a password link from ${deps.clientAddressOf(event)}`,
        );
        return again("Wrong code: the password is unchanged.", 401);
      }
      await attempt.succeeded();
    }
    const accepted = await accounts.acceptInvite(token, password, now); // the old password's sessions end on every node
    if (!accepted.ok) return htmlResponse(errorPage(null, 404, NO_INVITATION), 404);
    const how = `${link.kind === "reset" ? "by an emailed reset link" : "by an invitation link"} from ${deps.clientAddressOf(event)}`;
    await recordAccountEvent(ctx, link.kind === "reset" ? "account.password_reset" : "account.joined", accepted.value.user, how);
    if (accepted.value.grant !== null) await recordGrant(accepted.value.user, accepted.value.grant);
    await newUserSession(event, deps, accepted.value.user, now);
    return redirect("/");
  });
}
