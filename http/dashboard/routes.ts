// The web dashboard at SITE_ROOT/: sign-in, projects, the add form, settings; the checks list
// (checks-list-routes.ts), a check's pages (check-routes.ts) and integrations (integration-routes.ts)
// register through the shared context built here. Every answer is compressed when it is worth it
// (compression.ts). Every change
// goes through the same pool calls and the same validation (http/input.ts) and error texts
// (http/errors.ts) as the management API; the pages only render.
import { scheduleKindProblem } from "./schedule-kind.ts";
import type { H3, H3Event } from "h3";
import { HTTPError, HTTPResponse } from "h3";
import type { Clock } from "../../host/clock.ts";
import { systemClock } from "../../host/clock.ts";
import type { Caller, CheckRef } from "../../host/pool-api.ts";
import type { Check, Millis, Project } from "../../engine/model.ts";
import { HOUR, LIMITS } from "../../engine/model.ts";
import { isUuid } from "../../engine/ids.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { projectInputOf, projectMuteOf } from "../admin-input.ts";
import { checkRequestOf, isUniqueKey } from "../input.ts";
import type { JsonObject } from "../body.ts";
import { simulateStoredCheck } from "../simulate-check.ts";
import { simulationRequestOf } from "../simulate-input.ts";
import { presentBadges } from "../present.ts";
import { clientAddressOfRequests } from "../client-address.ts";
import { checkBodyOf, EMPTY_FORM, formValuesOf, previewOf, refFor, withPreset } from "./check-form.ts";
import { checkPageRoutes } from "./check-routes.ts";
import type { Access, CheckForm, DashboardContext } from "./context.ts";
import { auditPageRoutes, recordAccountEvent, recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import { integrationRoutes } from "./integration-routes.ts";
import type { MaintenanceForm } from "./maintenance-pages.ts";
import { EMPTY_MAINTENANCE_FORM, maintenanceSection } from "./maintenance-pages.ts";
import { maintenanceRoutes } from "./maintenance-routes.ts";
import type { ProjectEscalationForm } from "./project-escalation.ts";
import { mayChangeEscalation, projectEscalationForm, projectEscalationRoutes, projectEscalationSection } from "./project-escalation.ts";
import { statusPageRoutes } from "./status-page-routes.ts";
import { numberOf, plainLimitError, projectRoutes } from "./project-routes.ts";
import type { Viewer } from "./page-frame.ts";
import { readonlyWho } from "./page-frame.ts";
import type { CheckFormValues, WhatIf } from "./check-form-page.ts";
import { DASHBOARD_CHECK_LIMIT, errorPage, projectsPage, settingsPage, signInPage, statusWordOf } from "./pages.ts";
import { checkFormPage } from "./check-form-page.ts";
import { checksListRoutes } from "./checks-list-routes.ts";
import { livePageResponse } from "./live-page.ts";
import type { Encoding } from "./compression.ts";
import { compressedResponse, compressNow, encodingFor, MIN_BYTES } from "./compression.ts";
import { plainFormError } from "./form-errors.ts";
import { downtimeCsv } from "../downtime-report.ts";
import { downtimeQueryOf, projectDowntimeRows } from "../downtime-export.ts";
import {
  COOKIE,
  cookieOf,
  FailureCounter,
  formOf,
  htmlResponse,
  loadAssets,
  param,
  redirect,
  refuseCrossSite,
  SECURITY_HEADERS,
  nextPage,
  sessionCookie,
  SIGN_IN_FAILURES_PER_MINUTE,
  SignInNeeded,
  signInFor,
} from "./responses.ts";
import type { Asset } from "./responses.ts";
import type { Principal } from "./sessions.ts";
import { adminTokenHash, csrfMatches, MAX_SESSIONS, SESSION_IDLE_MS, SessionStore } from "./sessions.ts";
import type { Session } from "./sessions.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";
import { sessionKeyOf } from "../../host/session-key.ts";
import { Accounts } from "../../host/accounts.ts";
import { accountRoutes } from "./account-routes.ts";
import { inviteRoutes } from "./invite-routes.ts";
import { oidcRoutes } from "./oidc-routes.ts";
import { memberRoutes } from "./member-routes.ts";
import { userAdminRoutes } from "./user-admin-routes.ts";
import { manageOffer, permit } from "./permits.ts";
import { userAccess } from "./user-access.ts";
import { MemorySignInStore } from "../../host/sign-in-store.ts";

/** Cluster mode: how often a node checks that a session it holds is still shared (not signed out elsewhere). */
const SHARED_CHECK_MS = 5_000;

/** Registers the dashboard's routes on `app`. `sessionClock` measures session expiry and sign-in windows (real time, whatever CLOCK says). */
export function dashboardRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter; sessionClock?: Clock }): void {
  const { pool, clock, config } = deps;
  const accounts = deps.accounts ?? Accounts.open(null); // createApp always passes one
  const realClock = opts.sessionClock ?? systemClock;
  const sessions = new SessionStore();
  const shared = deps.sharedSessions; // cluster mode: every node's sessions
  // session id → the expiry its shared copy holds, and when this node last found that copy still there;
  // bounded like the sessions themselves (an expired or evicted session's entry goes with the oldest)
  const sharedCopies = new BoundedMap<string, { until: Millis; checkedAt: Millis }>(MAX_SESSIONS);
  const forget = (id: string) => {
    sessions.close(id);
    sharedCopies.delete(id);
  };
  shared?.onRemoved((key) => {
    // at once, while the watch of removals runs; it names the session's key, never its id
    sessions.closeKey(key);
    for (const [id] of sharedCopies.entries()) if (sessionKeyOf(id) === key) sharedCopies.delete(id);
  });
  /** Shares a session opened or renewed here; another node that gets the cookie then finds it. */
  const share = async (session: Session, at: Millis): Promise<void> => {
    if (shared === undefined) return;
    sharedCopies.set(session.id, { until: session.expiresAt, checkedAt: at });
    await shared.put(session);
  };
  const unshare = async (id: string): Promise<void> => {
    sharedCopies.delete(id);
    await shared?.remove(id).catch(() => {}); // the shared copy then runs out with its bucket's age limit
  };
  /**
   * Cluster mode, before a request is served: a session this node does not hold is looked up among the
   * shared ones. One it holds is checked against its shared copy every SHARED_CHECK_MS (a sign-out on
   * another node ends it here within that, even when the watch of removals missed it, as across a
   * reconnection), and that copy is renewed at most once an hour (the idle limit is 12 h). While the
   * bucket does not answer, the sessions held here go on.
   */
  const syncSession = async (event: H3Event): Promise<void> => {
    if (shared === undefined) return;
    const id = cookieOf(event.req.headers.get("cookie"), COOKIE);
    if (id === null || id === "") return;
    const now = realClock.now();
    const copy = sharedCopies.get(id);
    if (!sessions.has(id) || copy === undefined || now - copy.checkedAt >= SHARED_CHECK_MS) {
      let stored: Session | null;
      try {
        stored = await shared.get(id);
      } catch {
        return;
      }
      if (stored === null) return forget(id);
      if (!sessions.has(id)) sessions.adopt(stored, now);
      sharedCopies.set(id, { until: stored.expiresAt, checkedAt: now });
      return;
    }
    const session = sessions.find(id, now);
    if (session !== null && session.expiresAt - copy.until >= HOUR) void share(session, now).catch(() => {});
  };
  const failures = new FailureCounter(SIGN_IN_FAILURES_PER_MINUTE);
  const clientAddressOf = clientAddressOfRequests(config.trustedProxies ?? []);
  const secureCookie = config.siteRoot.startsWith("https:");
  const siteOrigin = new URL(config.siteRoot).origin;
  const assets = loadAssets();

  // --- request helpers -------------------------------------------------------------------------

  const { resolveProject, signedInUser, userAccessOf, instanceAdminAccess } = userAccess({ pool, accounts, sessions, realClock, unshare });
  const accessOf = (event: H3Event): Access | null => {
    const session = sessions.find(cookieOf(event.req.headers.get("cookie"), COOKIE), realClock.now());
    if (session === null) return null;
    if (session.principal.kind === "user") return instanceAdminAccess(event) ?? userAccessOf(event);
    const caller = callerOf(session.principal);
    if (caller === null) {
      // the key no longer opens anything, or ADMIN_TOKEN changed
      sessions.close(session.id);
      void unshare(session.id);
      return null;
    }
    const readonly = caller !== "admin" && caller.readonly;
    return { session, caller, viewer: { csrf: session.csrf, readonly, admin: caller === "admin" } };
  };
  // an admin session lasts while ADMIN_TOKEN is the token it was opened with, a key session while its key opens its project
  const currentAdminHash = adminTokenHash(config.adminToken);
  const callerOf = (principal: Exclude<Principal, { kind: "user" }>): Caller | "admin" | null =>
    principal.kind === "admin" ? (principal.tokenHash === currentAdminHash ? "admin" : null) : pool.authenticate(principal.apiKey);
  const requireAccess = (event: H3Event): Access => {
    const access = accessOf(event);
    if (access !== null) return access;
    // a user holding no role in the project the URL names (or on a page for the admin token) is told it is not there
    if (signedInUser(event) !== null) throw httpError(404, "project not found");
    throw new SignInNeeded();
  };
  /** Returns the form of a POST after checking its CSRF token and that the session may write. */
  const writeForm = async (event: H3Event, access: Access): Promise<URLSearchParams> => {
    const form = await formOf(event);
    if (!csrfMatches(access.session, form.get("csrf")))
      throw httpError(403, "the form's security token is missing or stale: reload the page and try again");
    if (access.user !== undefined) permit(access, "checks.change", { keys: true, refusal: "" }); // every form asks at least this
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: changes are not allowed`);
    return form;
  };
  const projectFor = (access: Access, projectId: string): Project => {
    const project =
      access.caller === "admin"
        ? pool.listProjects().find((p) => p.id === projectId)
        : access.caller.project.id === projectId
          ? access.caller.project
          : undefined;
    if (project === undefined) throw httpError(404, "project not found");
    return project;
  };
  /** Returns the check named by a URL, with its project; uuid or (read-only keys) unique_key. */
  const checkFor = async (access: Access, ref: string): Promise<{ project: Project; check: Check; ref: string }> => {
    let project: Project | null;
    let checkRef: CheckRef;
    if (isUuid(ref)) {
      checkRef = { uuid: ref.toLowerCase() };
      project = access.caller === "admin" ? pool.projectOfCheck(ref.toLowerCase()) : access.caller.project;
    } else if (isUniqueKey(ref) && access.caller !== "admin") {
      checkRef = { uniqueKey: ref };
      project = access.caller.project;
    } else {
      throw httpError(404, "check not found");
    }
    if (project === null) throw httpError(404, "check not found");
    const outcome = await pool.getCheck(project.id, checkRef);
    if (!outcome.ok) throw httpError(404, "check not found"); // another project's check is simply not there
    return { project, check: outcome.value, ref: refFor(access.viewer, outcome.value) };
  };

  const route = (method: "GET" | "POST", path: string, handler: (event: H3Event) => Promise<HTTPResponse>) => {
    const wrapped = async (event: H3Event) => compressedResponse(await answer(event), event.req.headers.get("accept-encoding"));
    const answer = async (event: H3Event) => {
      try {
        if (method === "POST") refuseCrossSite(event.req.headers, siteOrigin);
        await syncSession(event);
        const session = sessions.find(cookieOf(event.req.headers.get("cookie"), COOKIE), realClock.now());
        if (session?.principal.kind === "user") await resolveProject(event, session.principal.userId);
        return await handler(event);
      } catch (error) {
        // a page asked for signed out: sign in, then that page (a link in a notification lands on its check)
        if (error instanceof SignInNeeded)
          return method === "GET"
            ? redirect(signInFor(event.url.pathname + event.url.search))
            : htmlResponse(signInPage("Please sign in."), 401);
        const viewer = accessOf(event)?.viewer ?? null;
        if (HTTPError.isError(error) && !error.unhandled) return htmlResponse(errorPage(viewer, error.status, error.message), error.status);
        opts.report(HTTPError.isError(error) && error.cause instanceof Error ? error.cause : error);
        return htmlResponse(errorPage(viewer, 500, "internal error"), 500);
      }
    };
    if (method === "GET") app.get(path, wrapped);
    else app.post(path, wrapped);
  };

  // --- sign-in and projects ----------------------------------------------------------------------

  route("GET", "/", async (event) => {
    const user = signedInUser(event);
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
          reset: deps.sendUserMail !== undefined,
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
    const address = clientAddressOf(event);
    const now = realClock.now();
    if (failures.isBlocked(address, now)) return htmlResponse(signInPage("Too many failed attempts: wait a minute and try again."), 429);
    const form = await formOf(event);
    const key = form.get("key") ?? "";
    const next = nextPage(form.get("next"));
    let principal = principalOf(key);
    if (principal === null && key !== "") {
      await pool.catchUp(); // a key created on another node a moment ago
      principal = principalOf(key);
    }
    if (principal === null) {
      failures.count(address, now);
      return htmlResponse(signInPage("Wrong admin token or API key.", { next }), 401);
    }
    const session = sessions.open(principal, now);
    await share(session, now);
    if (principal.kind === "admin") await recordAccountEvent({ deps }, "account.signed_in", "admin", `from ${address}`);
    return redirect(next, { "set-cookie": sessionCookie(session.id, { maxAgeMs: SESSION_IDLE_MS, secure: secureCookie }) });
  });
  const principalOf = (key: string): Principal | null => {
    if (key === "") return null;
    try {
      authorizeAdmin(new Headers({ authorization: `Bearer ${key}` }), config.adminToken);
      return { kind: "admin", tokenHash: currentAdminHash };
    } catch {
      return pool.authenticate(key) === null ? null : { kind: "key", apiKey: key };
    }
  };

  route("POST", "/signout", async (event) => {
    const session = sessions.find(cookieOf(event.req.headers.get("cookie"), COOKIE), realClock.now());
    if (session === null) throw new SignInNeeded();
    const access = { session }; // any session signs out, a user's on a page of no project too
    const form = await formOf(event);
    if (!csrfMatches(access.session, form.get("csrf"))) throw httpError(403, "the form's security token is missing or stale");
    sessions.close(access.session.id);
    await unshare(access.session.id);
    return redirect("/", { "set-cookie": sessionCookie("", { maxAgeMs: 0, secure: secureCookie }) });
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
    await recordDashboardChange({ deps }, access, {
      projectId: project.id,
      action: "project.created",
      target: auditTarget.project(project),
      at,
    });
    return redirect(`/projects/${project.id}/checks`);
  });

  // --- checks ----------------------------------------------------------------------------------

  route("GET", "/projects/:project/checks/new", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: changes are not allowed`);
    return htmlResponse(
      await formHtml(access.viewer, project, {
        values: EMPTY_FORM,
        error: null,
        action: `/projects/${project.id}/checks/new`,
        title: "Add check",
      }),
    );
  });

  const formHtml = async (viewer: Viewer, project: Project, opts: CheckForm): Promise<string> => {
    const others = (await pool.listChecks(project.id, { tags: [] })).filter((c) => c.uuid !== opts.uuid);
    const dependencies = others.map((c) => ({ uuid: c.uuid, name: c.name })).sort((a, b) => a.name.localeCompare(b.name));
    const error = opts.error === null ? null : plainFormError(opts.error, project, opts.values);
    const errorField = opts.error?.code === "invalid" ? opts.error.field : null;
    const channels = (await pool.listChannels(project.id)).map((c) => ({ id: c.id, name: c.name, kind: c.kind }));
    return checkFormPage(viewer, {
      ...opts,
      error,
      errorField,
      dependencies,
      channels,
      project,
      preview: previewOf(opts.values, clock.now()),
    });
  };
  /** The edit form's settings tried on the check's logged pings: the API's simulate, as one line. */
  const whatIfOf = async (project: Project, check: Check, values: CheckFormValues): Promise<WhatIf> => {
    const untilAt = clock.now();
    const request = unwrap(simulationRequestOf(checkBodyOf(values) as JsonObject)); // already valid as an update
    const { pings } = unwrap(await pool.listPings(project.id, check.uuid));
    if (pings.length === 0) return { windowMs: null, downCount: 0, downtimeMs: 0, heldCount: 0 };
    const current = pool.listProjects().find((p) => p.id === project.id) ?? project; // its maintenance windows as they are now
    const result = unwrap(await simulateStoredCheck(deps, current, check, pings, request, untilAt));
    return {
      windowMs: untilAt - result.sinceAt,
      downCount: result.downCount,
      downtimeMs: result.downtimeMs,
      heldCount: result.notifications.held,
    };
  };

  route("POST", "/projects/:project/checks/new", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    const values = formValuesOf(form);
    const page = { values, action: `/projects/${project.id}/checks/new`, title: "Add check" };
    const picked = withPreset(values, form); // a quick pick pressed: the form again, filled in
    if (picked !== null) return htmlResponse(await formHtml(access.viewer, project, { ...page, values: picked, error: null }));
    const kindProblem = scheduleKindProblem(values, EMPTY_FORM);
    if (kindProblem !== null) return htmlResponse(await formHtml(access.viewer, project, { ...page, error: kindProblem }), 400);
    const request = checkRequestOf(checkBodyOf(values), null);
    if (!request.ok) return htmlResponse(await formHtml(access.viewer, project, { ...page, error: request.failure }), 400);
    if (form.get("action") === "preview")
      return htmlResponse(await formHtml(access.viewer, project, { ...page, error: null, previewAsked: true }));
    const at = clock.now();
    // a new check gets the project's integrations that are "added to new checks" (the reference: all of them)
    const defaults = (await pool.listChannels(project.id)).filter((c) => c.newChecks !== false).map((c) => c.id);
    const spec =
      request.value.spec.channels === undefined && defaults.length > 0
        ? { ...request.value.spec, channels: { refs: defaults } }
        : request.value.spec;
    const created = await pool.createCheck(project.id, spec, [], at);
    if (!created.ok) return htmlResponse(await formHtml(access.viewer, project, { ...page, error: created.failure }), 400);
    await recordDashboardChange({ deps }, access, {
      projectId: project.id,
      action: "check.created",
      target: auditTarget.check(created.value.check),
      at,
    });
    return redirect(`/checks/${created.value.check.uuid}?done=created`);
  });

  /** The settings page with the project as the directory has it now (its maintenance windows just changed, maybe). */
  const settingsHtml = async (
    access: Access,
    stale: Project,
    opts: {
      mute: { error: string | null; until: string } | null;
      maintenance?: MaintenanceForm;
      escalation?: ProjectEscalationForm;
      notice?: string | null;
    },
  ): Promise<string> => {
    const project = pool.listProjects().find((p) => p.id === stale.id) ?? stale;
    const checks = await pool.listChecks(project.id, { tags: [] });
    const at = clock.now();
    const form = opts.maintenance ?? { values: EMPTY_MAINTENANCE_FORM, error: null, errorField: null };
    const maintenance = maintenanceSection(access.viewer, { project, at, form });
    const channels = access.viewer.readonly ? [] : await pool.listChannels(project.id);
    const escalation = projectEscalationSection(access.viewer, {
      project,
      channels,
      form: opts.escalation ?? projectEscalationForm(project),
      editable: mayChangeEscalation(access),
    });
    return settingsPage(access.viewer, {
      project,
      badges: presentBadges(project, checks, config).badges,
      at,
      mute: opts.mute,
      maintenance,
      escalation,
      notice: opts.notice,
      manage: manageOffer(access),
    });
  };

  route("GET", "/projects/:project/settings", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const done = event.url.searchParams.get("done");
    const notice = done === "mute" ? "Maintenance mute saved." : done === "escalation" ? "Escalation policy saved." : null;
    return htmlResponse(await settingsHtml(access, project, { mute: null, notice }));
  });

  // the project's downtime per check and period as CSV: the API's export (http/downtime-export.ts)
  route("GET", "/projects/:project/downtime.csv", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const now = clock.now();
    const query = unwrap(downtimeQueryOf(event.url.searchParams, now));
    const rows = await projectDowntimeRows(pool, project, query, now, access.viewer.readonly);
    return new HTTPResponse(downtimeCsv(rows, access.viewer.readonly ? "unique_key" : "uuid"), {
      status: 200,
      headers: {
        ...SECURITY_HEADERS,
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="downtime-${query.unit}-${query.periods[0]?.label ?? "none"}.csv"`,
      },
    });
  });

  // the project-wide mute (a maintenance window): the admin API's rules and texts
  route("POST", "/projects/:project/mute", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    permit(access, "project.change", { keys: false, refusal: "only the admin token mutes a project" });
    const until = (form.get("until") ?? "").trim();
    const untilAt = projectMuteOf({ until: until === "" ? null : until }); // an emptied field unmutes
    if (!untilAt.ok) {
      return htmlResponse(await settingsHtml(access, project, { mute: { error: reasonOf(untilAt.failure), until } }), 400);
    }
    const at = clock.now();
    unwrap(await pool.muteProject(project.id, untilAt.value, at));
    await recordDashboardChange({ deps }, access, {
      projectId: project.id,
      action: untilAt.value === null ? "project.unmuted" : "project.muted",
      target: auditTarget.project(project),
      at,
    });
    return redirect(`/projects/${project.id}/settings?done=mute`);
  });

  const ctx: DashboardContext = { deps, route, requireAccess, writeForm, projectFor, checkFor, formHtml, whatIfOf };
  checksListRoutes(ctx);
  checkPageRoutes(ctx);
  maintenanceRoutes(ctx, settingsHtml);
  projectEscalationRoutes(ctx, settingsHtml);
  statusPageRoutes(ctx);
  projectRoutes(ctx);
  integrationRoutes(ctx);
  memberRoutes(ctx, accounts);
  userAdminRoutes(ctx, accounts);
  const signInStore = deps.signInStore ?? new MemorySignInStore();
  const accountDeps = { accounts, sessions, realClock, secureCookie, share, unshare, signedInUser, signInStore, clientAddressOf };
  accountRoutes(ctx, accountDeps);
  inviteRoutes(ctx, accountDeps);
  if (config.oidc) oidcRoutes(ctx, accountDeps, config.oidc);
  auditPageRoutes(ctx);

  // --- static files ----------------------------------------------------------------------------

  for (const [name, asset] of Object.entries(assets)) app.get(`/static/${name}`, staticFile(asset));
  // browsers and feed readers ask for /favicon.ico whatever the page names: the same icon
  app.get("/favicon.ico", staticFile(assets["favicon.svg"]));
}

/** The handler of a static file: its bytes compressed once per encoding (at start), the one each request takes. */
function staticFile(asset: Asset): (event: H3Event) => HTTPResponse {
  const plain = typeof asset.body === "string" ? new TextEncoder().encode(asset.body) : asset.body;
  const bodies: Record<Encoding, Uint8Array<ArrayBuffer>> = { br: compressNow(plain, "br"), gzip: compressNow(plain, "gzip") };
  const headers = { ...SECURITY_HEADERS, "content-type": asset.type, "cache-control": "public, max-age=300", vary: "Accept-Encoding" };
  return (event) => {
    const encoding = plain.byteLength < MIN_BYTES ? null : encodingFor(event.req.headers.get("accept-encoding"));
    if (encoding === null) return new HTTPResponse(plain, { headers });
    return new HTTPResponse(bodies[encoding], { headers: { ...headers, "content-encoding": encoding } });
  };
}
