// The dashboard's front page and its sign-in with the admin token or a project's API key (users sign in
// through account-routes.ts): the sign-in form or the projects a session may see, sign-out, a new project.
import type { H3Event } from "h3";
import type { Caller, Pool } from "../../host/pool-api.ts";
import { auditTarget } from "../../host/audit.ts";
import { LIMITS } from "../../engine/model.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { httpError, reasonOf } from "../errors.ts";
import { projectInputOf } from "../admin-input.ts";
import type { AccountRouteDeps } from "./account-routes.ts";
import { recordAccountEvent, recordDashboardChange } from "./audit-routes.ts";
import type { Access, DashboardContext } from "./context.ts";
import type { Viewer } from "./page-frame.ts";
import { DASHBOARD_CHECK_LIMIT, projectsPage, signInPage, statusWordOf } from "./pages.ts";
import { numberOf, plainLimitError } from "./project-routes.ts";
import { livePageResponse } from "./live-page.ts";
import {
  FailureCounter,
  formOf,
  htmlResponse,
  nextPage,
  redirect,
  endSessionCookie,
  sessionIdOf,
  setSessionCookie,
  SIGN_IN_FAILURES_PER_MINUTE,
  SignInNeeded,
} from "./responses.ts";
import type { Principal } from "./sessions.ts";
import { adminTokenHash, csrfMatches, SESSION_IDLE_MS } from "./sessions.ts";

/** Who a key signs in as (the admin token, or an API key), and who a session opened so still is. */
export type KeyPrincipals = {
  /** The principal `key` signs in as, or null when it is neither the admin token nor an API key. */
  readonly principalOf: (key: string) => Principal | null;
  /** An admin session's caller while ADMIN_TOKEN is the token it was opened with, a key session's while its key opens its project; else null. */
  readonly callerOf: (principal: Exclude<Principal, { kind: "user" }>) => Caller | "admin" | null;
};

export function keyPrincipals(pool: Pool, adminToken: string): KeyPrincipals {
  const currentAdminHash = adminTokenHash(adminToken);
  return {
    principalOf: (key) => {
      if (key === "") return null;
      try {
        authorizeAdmin(new Headers({ authorization: `Bearer ${key}` }), adminToken);
        return { kind: "admin", tokenHash: currentAdminHash };
      } catch {
        return pool.authenticate(key) === null ? null : { kind: "key", apiKey: key };
      }
    },
    callerOf: (principal) =>
      principal.kind === "admin" ? (principal.tokenHash === currentAdminHash ? "admin" : null) : pool.authenticate(principal.apiKey),
  };
}

/** Registers the front page, the admin token's and API keys' sign-in, sign-out, and the new project form's POST. */
export function signInRoutes(
  ctx: DashboardContext,
  deps: AccountRouteDeps,
  keys: KeyPrincipals,
  accessOf: (event: H3Event) => Access | null,
): void {
  const { route, requireAccess, writeForm } = ctx;
  const app: AppDeps = ctx.deps;
  const { pool, clock, config } = app;
  const { accounts, sessions, realClock, secureCookie } = deps;
  const failures = new FailureCounter(SIGN_IN_FAILURES_PER_MINUTE);

  route("GET", "/", async (event) => {
    const user = deps.signedInUser(event);
    const next = event.url.searchParams.get("next");
    if (next !== null && nextPage(next) !== "/" && (user !== null || accessOf(event) !== null)) return redirect(nextPage(next)); // signed in already
    if (user !== null && !user.user.admin) {
      // a user sees the projects they hold a role in (an instance admin, all)
      const viewer = { csrf: user.session.csrf, readonly: true, admin: false, user: { email: user.user.email, role: null } };
      const theirs = new Set(accounts.membershipsOf(user.user.id).map((m) => m.projectId));
      return htmlResponse(await projectsHtml(viewer, null, theirs));
    }
    const access = accessOf(event);
    if (access === null)
      return htmlResponse(
        signInPage(null, {
          reset: app.sendUserMail !== undefined,
          sso: Boolean(config.oidc),
          next: nextPage(next),
          ...(accounts.userCount() === 0 ? { firstAdmin: config.siteRoot } : {}),
        }),
      );
    if (access.caller !== "admin") return redirect(`/projects/${access.caller.project.id}/checks`);
    return livePageResponse(event, await projectsHtml(access.viewer, null));
  });

  /** The projects page; `only`: the projects a user holds a role in (absent: all, for the admin token). */
  const projectsHtml = async (viewer: Viewer, error: string | null, only?: ReadonlySet<string>): Promise<string> => {
    const at = clock.now();
    const shown = pool.listProjects().filter((project) => only === undefined || only.has(project.id));
    const summaries = await Promise.all(
      shown.map(async (project) => {
        const checks = await pool.listChecks(project.id, { tags: [] });
        return { project, checks: checks.length, down: checks.filter((c) => statusWordOf(c, at) === "down").length };
      }),
    );
    summaries.sort((a, b) => b.down - a.down || a.project.name.localeCompare(b.project.name));
    return projectsPage(viewer, summaries, error);
  };

  route("POST", "/signin", async (event) => {
    const address = deps.clientAddressOf(event);
    const now = realClock.now();
    if (failures.isBlocked(address, now)) return htmlResponse(signInPage("Too many failed attempts: wait a minute and try again."), 429);
    const form = await formOf(event);
    const key = form.get("key") ?? "";
    const next = nextPage(form.get("next"));
    let principal = keys.principalOf(key);
    if (principal === null && key !== "") {
      await pool.catchUp(); // a key created on another node a moment ago
      principal = keys.principalOf(key);
    }
    if (principal === null) {
      failures.count(address, now);
      return htmlResponse(signInPage("Wrong admin token or API key.", { next }), 401);
    }
    const session = sessions.open(principal, now);
    await deps.share(session, now);
    if (principal.kind === "admin") await recordAccountEvent({ deps: app }, "account.signed_in", "admin", `from ${address}`);
    setSessionCookie(event, session.id, { maxAgeMs: SESSION_IDLE_MS, secure: secureCookie });
    return redirect(next);
  });

  route("POST", "/signout", async (event) => {
    const session = sessions.find(sessionIdOf(event), realClock.now());
    if (session === null) throw new SignInNeeded();
    const access = { session }; // any session signs out, a user's on a page of no project too
    const form = await formOf(event);
    if (!csrfMatches(access.session, form.get("csrf"))) throw httpError(403, "the form's security token is missing or stale");
    sessions.close(access.session.id);
    await deps.unshare(access.session.id);
    endSessionCookie(event, secureCookie);
    return redirect("/");
  });

  route("POST", "/projects", async (event) => {
    const access = requireAccess(event);
    const form = await writeForm(event, access);
    if (access.caller !== "admin") throw httpError(403, "only an instance admin (or the admin token) creates projects");
    const name = form.get("name") ?? "";
    // a blank name would make a row and a nav link with nothing to click
    if (name.trim() === "")
      return htmlResponse(await projectsHtml(access.viewer, "The name is empty: type a name with at least one letter or digit."), 400);
    const limit = (field: string, fallback: number) => (form.get(field) === null ? fallback : numberOf(form.get(field) ?? ""));
    const input = projectInputOf({
      name,
      check_limit: limit("check_limit", DASHBOARD_CHECK_LIMIT),
      ping_log_limit: limit("ping_log_limit", LIMITS.defaultPingLogLimit),
      ping_body_limit: limit("ping_body_limit", LIMITS.defaultPingBodyLimit),
    });
    if (!input.ok && input.failure.code === "invalid" && input.failure.field !== "name")
      return htmlResponse(await projectsHtml(access.viewer, plainLimitError(input.failure)), 400);
    if (!input.ok) return htmlResponse(await projectsHtml(access.viewer, reasonOf(input.failure)), 400);
    const at = clock.now();
    const project = await pool.createProject(input.value, at);
    await recordDashboardChange({ deps: app }, access, {
      projectId: project.id,
      action: "project.created",
      target: auditTarget.project(project),
      at,
    });
    return redirect(`/projects/${project.id}/checks`);
  });
}
