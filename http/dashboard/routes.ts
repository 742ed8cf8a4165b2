// The web dashboard at SITE_ROOT/: the signed-in request and the context built here, through which every
// group of pages registers (sign-in-routes.ts, settings-routes.ts, checks-list-routes.ts, check-routes.ts, …);
// the add form and static files. Every answer is compressed when it is worth it (compression.ts). Every
// change goes through the same pool calls and the same validation (http/input.ts) and error texts
// (http/errors.ts) as the management API; the pages only render.
import { scheduleKindProblem } from "./schedule-kind.ts";
import type { H3, H3Event } from "h3";
import { HTTPError, HTTPResponse } from "h3";
import type { Clock } from "../../host/clock.ts";
import { systemClock } from "../../host/clock.ts";
import type { CheckRef } from "../../host/pool-api.ts";
import type { Check, Millis, Project } from "../../engine/model.ts";
import { isUuid } from "../../engine/ids.ts";
import type { AppDeps } from "../deps.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import { checkRequestOf, isUniqueKey } from "../input.ts";
import type { JsonObject } from "../body.ts";
import { simulateStoredCheck } from "../simulate-check.ts";
import { simulationRequestOf } from "../simulate-input.ts";
import { clientAddressOfRequests } from "../client-address.ts";
import { checkBodyOf, EMPTY_FORM, formValuesOf, previewOf, refFor, withPreset } from "./check-form.ts";
import { checkPageRoutes } from "./check-routes.ts";
import type { Access, CheckForm, DashboardContext } from "./context.ts";
import { auditPageRoutes, recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import { integrationRoutes } from "./integration-routes.ts";
import { statusPageRoutes } from "./status-page-routes.ts";
import { projectRoutes } from "./project-routes.ts";
import type { Viewer } from "./page-frame.ts";
import { readonlyWho } from "./page-frame.ts";
import type { CheckFormValues, WhatIf } from "./check-form-page.ts";
import { errorPage, signInPage } from "./pages.ts";
import { checkFormPage } from "./check-form-page.ts";
import { checksListRoutes } from "./checks-list-routes.ts";
import type { Encoding } from "./compression.ts";
import { compressedResponse, compressNow, encodingFor, MIN_BYTES } from "./compression.ts";
import { plainFormError } from "./form-errors.ts";
import {
  sessionIdOf,
  formOf,
  htmlResponse,
  loadAssets,
  param,
  redirect,
  refuseCrossSite,
  SECURITY_HEADERS,
  SignInNeeded,
  signInFor,
} from "./responses.ts";
import type { Asset } from "./responses.ts";
import { csrfMatches, SessionStore } from "./sessions.ts";
import type { Session } from "./sessions.ts";
import { Accounts } from "../../host/accounts.ts";
import { accountRoutes } from "./account-routes.ts";
import { inviteRoutes } from "./invite-routes.ts";
import { oidcRoutes } from "./oidc-routes.ts";
import { memberRoutes } from "./member-routes.ts";
import { userAdminRoutes } from "./user-admin-routes.ts";
import { permit } from "./permits.ts";
import { userAccess } from "./user-access.ts";
import { MemorySignInStore } from "../../host/sign-in-store.ts";
import { SessionSharing } from "./shared-sessions.ts";
import { keyPrincipals, signInRoutes } from "./sign-in-routes.ts";
import { settingsRoutes } from "./settings-routes.ts";

/** Registers the dashboard's routes on `app`. `sessionClock` measures session expiry and sign-in windows (real time, whatever CLOCK says). */
export function dashboardRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter; sessionClock?: Clock }): void {
  const { pool, clock, config } = deps;
  const accounts = deps.accounts ?? Accounts.open(null); // createApp always passes one
  const realClock = opts.sessionClock ?? systemClock;
  const sessions = new SessionStore();
  const sharing = new SessionSharing(sessions, deps.sharedSessions, realClock); // cluster mode: every node's sessions
  const share = (session: Session, at: Millis) => sharing.share(session, at);
  const unshare = (id: string) => sharing.unshare(id);
  const clientAddressOf = clientAddressOfRequests(config.trustedProxies ?? []);
  const secureCookie = config.siteRoot.startsWith("https:");
  const siteOrigin = new URL(config.siteRoot).origin;
  const assets = loadAssets();

  // --- request helpers -------------------------------------------------------------------------

  const { resolveProject, signedInUser, userAccessOf, instanceAdminAccess } = userAccess({ pool, accounts, sessions, realClock, unshare });
  const keys = keyPrincipals(pool, config.adminToken);
  const accessOf = (event: H3Event): Access | null => {
    const session = sessions.find(sessionIdOf(event), realClock.now());
    if (session === null) return null;
    if (session.principal.kind === "user") return instanceAdminAccess(event) ?? userAccessOf(event);
    const caller = keys.callerOf(session.principal);
    if (caller === null) {
      // the key no longer opens anything, or ADMIN_TOKEN changed
      sessions.close(session.id);
      void unshare(session.id);
      return null;
    }
    const readonly = caller !== "admin" && caller.readonly;
    return { session, caller, viewer: { csrf: session.csrf, readonly, admin: caller === "admin" } };
  };
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
        await sharing.sync(sessionIdOf(event));
        const session = sessions.find(sessionIdOf(event), realClock.now());
        if (session?.principal.kind === "user") await resolveProject(event, session.principal.userId);
        return await handler(event);
      } catch (error) {
        // a page asked for signed out: sign in, then that page (a link in a notification lands on its check);
        // asked signed in but not as the page needs (the admin token's or a key's session on a user's page):
        // home, not to the sign-in page, which sends a signed-in session straight back
        if (error instanceof SignInNeeded && method === "GET" && (signedInUser(event) !== null || accessOf(event) !== null))
          return redirect("/");
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

  const ctx: DashboardContext = { deps, route, requireAccess, writeForm, projectFor, checkFor, formHtml, whatIfOf };
  const signInStore = deps.signInStore ?? new MemorySignInStore();
  const accountDeps = { accounts, sessions, realClock, secureCookie, share, unshare, signedInUser, signInStore, clientAddressOf };
  signInRoutes(ctx, accountDeps, keys, accessOf);
  checksListRoutes(ctx);
  checkPageRoutes(ctx);
  settingsRoutes(ctx);
  statusPageRoutes(ctx);
  projectRoutes(ctx);
  integrationRoutes(ctx);
  memberRoutes(ctx, accounts);
  userAdminRoutes(ctx, accounts);
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
