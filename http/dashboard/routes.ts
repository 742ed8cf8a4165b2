// The web dashboard at SITE_ROOT/: sign-in, projects, checks, a check's page and forms. Every change
// goes through the same pool calls and the same validation (http/input.ts) and error texts
// (http/errors.ts) as the management API; the pages only render.
import { existsSync, readFileSync } from "node:fs";
import type { H3, H3Event } from "h3";
import { HTTPError, HTTPResponse } from "h3";
import type { Clock } from "../../host/clock.ts";
import { systemClock } from "../../host/clock.ts";
import type { Caller, CheckRef } from "../../host/pool-api.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { Channel, Check, Millis, Project } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import { nextAfter } from "../../engine/schedule.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { channelInputOf, projectInputOf, projectMuteOf } from "../admin-input.ts";
import { checkRequestOf, isUniqueKey, pingNumberOf } from "../input.ts";
import { isUuid } from "../../engine/ids.ts";
import type { JsonObject } from "../body.ts";
import { readBodyBytes } from "../body.ts";
import { simulateStoredCheck } from "../simulate-check.ts";
import { simulationRequestOf } from "../simulate-input.ts";
import { presentBadges, presentChannelStates } from "../present.ts";
import { remoteAddress } from "../routes/pings.ts";
import { checkIntegrations, integrationsPage } from "./integration-pages.ts";
import type { CheckFormValues, ChecksFilter, StatusWord, Viewer, WhatIf } from "./pages.ts";
import {
  checkFormPage, checkPage, checkRows, checksPage, deletePage, errorPage, projectsPage, settingsPage, signInPage,
  statusWordOf, STATUS_WORDS, tagsOf,
} from "./pages.ts";
import type { Principal, Session } from "./sessions.ts";
import { csrfMatches, SESSION_IDLE_MS, SessionStore } from "./sessions.ts";

const COOKIE = "hcd_session";
/** Failed sign-ins allowed per client address per minute. */
const SIGN_IN_FAILURES_PER_MINUTE = 10;

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** A signed-in request: its session, what to render, and the caller behind it. */
type Access = { readonly session: Session; readonly viewer: Viewer; readonly caller: Caller | "admin" };

/** Registers the dashboard's routes on `app`. `sessionClock` measures session expiry and sign-in windows (real time, whatever CLOCK says). */
export function dashboardRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter; sessionClock?: Clock }): void {
  const { pool, clock, config } = deps;
  const realClock = opts.sessionClock ?? systemClock;
  const sessions = new SessionStore();
  const failures = new FailureCounter(SIGN_IN_FAILURES_PER_MINUTE);
  const secureCookie = config.siteRoot.startsWith("https:");
  const siteOrigin = new URL(config.siteRoot).origin;
  const assets = loadAssets();

  // --- request helpers -------------------------------------------------------------------------

  const accessOf = (event: H3Event): Access | null => {
    const session = sessions.find(cookieOf(event.req.headers.get("cookie"), COOKIE), realClock.now());
    if (session === null) return null;
    const caller = callerOf(session.principal);
    if (caller === null) { // the key no longer opens anything
      sessions.close(session.id);
      return null;
    }
    const readonly = caller !== "admin" && caller.readonly;
    return { session, caller, viewer: { csrf: session.csrf, readonly, admin: caller === "admin" } };
  };
  const callerOf = (principal: Principal): Caller | "admin" | null =>
    principal.kind === "admin" ? "admin" : pool.authenticate(principal.apiKey);
  const requireAccess = (event: H3Event): Access => {
    const access = accessOf(event);
    if (access === null) throw new SignInNeeded();
    return access;
  };
  /** Returns the form of a POST after checking its CSRF token and that the session may write. */
  const writeForm = async (event: H3Event, access: Access): Promise<URLSearchParams> => {
    const form = await formOf(event);
    if (!csrfMatches(access.session, form.get("csrf"))) throw httpError(403, "the form's security token is missing or stale: reload the page and try again");
    if (access.viewer.readonly) throw httpError(403, "read-only key: changes are not allowed");
    return form;
  };
  const projectFor = (access: Access, projectId: string): Project => {
    const project = access.caller === "admin"
      ? pool.listProjects().find((p) => p.id === projectId)
      : access.caller.project.id === projectId ? access.caller.project : undefined;
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
    const wrapped = async (event: H3Event) => {
      try {
        if (method === "POST") refuseCrossSite(event.req.headers, siteOrigin);
        return await handler(event);
      } catch (error) {
        if (error instanceof SignInNeeded) return method === "GET" ? redirect("/") : htmlResponse(signInPage("Please sign in."), 401);
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
    const access = accessOf(event);
    if (access === null) return htmlResponse(signInPage(null));
    if (access.caller !== "admin") return redirect(`/projects/${access.caller.project.id}/checks`);
    return htmlResponse(await projectsHtml(access.viewer, null));
  });

  const projectsHtml = async (viewer: Viewer, error: string | null): Promise<string> => {
    const at = clock.now();
    const summaries = await Promise.all(pool.listProjects().map(async (project) => {
      const checks = await pool.listChecks(project.id, { tags: [] });
      return { project, checks: checks.length, down: checks.filter((c) => statusWordOf(c, at) === "down").length };
    }));
    summaries.sort((a, b) => b.down - a.down || a.project.name.localeCompare(b.project.name));
    return projectsPage(viewer, summaries, error);
  };

  route("POST", "/signin", async (event) => {
    const address = remoteAddress(undefined, event.runtime?.node?.req.socket?.remoteAddress ?? event.req.ip);
    const now = realClock.now();
    if (failures.isBlocked(address, now)) return htmlResponse(signInPage("Too many failed attempts: wait a minute and try again."), 429);
    const key = (await formOf(event)).get("key") ?? "";
    const principal = principalOf(key);
    if (principal === null) {
      failures.count(address, now);
      return htmlResponse(signInPage("Wrong admin token or API key."), 401);
    }
    const session = sessions.open(principal, now);
    return redirect("/", { "set-cookie": sessionCookie(session.id, { maxAgeMs: SESSION_IDLE_MS, secure: secureCookie }) });
  });
  const principalOf = (key: string): Principal | null => {
    if (key === "") return null;
    try {
      authorizeAdmin(new Headers({ authorization: `Bearer ${key}` }), config.adminToken);
      return { kind: "admin" };
    } catch {
      return pool.authenticate(key) === null ? null : { kind: "key", apiKey: key };
    }
  };

  route("POST", "/signout", async (event) => {
    const access = requireAccess(event);
    const form = await formOf(event);
    if (!csrfMatches(access.session, form.get("csrf"))) throw httpError(403, "the form's security token is missing or stale");
    sessions.close(access.session.id);
    return redirect("/", { "set-cookie": sessionCookie("", { maxAgeMs: 0, secure: secureCookie }) });
  });

  route("POST", "/projects", async (event) => {
    const access = requireAccess(event);
    const form = await writeForm(event, access);
    if (access.caller !== "admin") throw httpError(403, "only the admin token creates projects");
    const input = projectInputOf({ name: form.get("name") ?? "" });
    if (!input.ok) return htmlResponse(await projectsHtml(access.viewer, reasonOf(input.failure)), 400);
    const project = await pool.createProject(input.value, clock.now());
    return redirect(`/projects/${project.id}/checks`);
  });

  // --- checks ----------------------------------------------------------------------------------

  const checksData = async (access: Access, project: Project, params: URLSearchParams) => {
    const at = clock.now();
    const filter = filterOf(params);
    const all = await pool.listChecks(project.id, { tags: [] });
    // each check's status once: filter, sort and rows all need it, and a cron schedule's is not free
    const words = new Map(all.map((c) => [c, statusWordOf(c, at)]));
    const wordOf = (c: Check): StatusWord => words.get(c) ?? statusWordOf(c, at);
    const tags = [...new Set(all.flatMap((c) => tagsOf(c.tags)))].sort();
    const q = filter.q.trim().toLowerCase();
    const shown = all
      .filter((c) => filter.tag === "" || tagsOf(c.tags).includes(filter.tag))
      .filter((c) => filter.status === "" || wordOf(c) === filter.status)
      .filter((c) => q === "" || c.name.toLowerCase().includes(q) || c.slug.includes(q) || (!access.viewer.readonly && c.uuid.includes(q)));
    sortChecks(shown, filter.sort, wordOf);
    const down = all.filter((c) => wordOf(c) === "down").length;
    return { project, checks: shown, tags, filter, at, down, wordOf, refOf: (c: Check) => refFor(access.viewer, c) };
  };

  route("GET", "/projects/:project/checks", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    return htmlResponse(checksPage(access.viewer, await checksData(access, project, event.url.searchParams)));
  });

  // the auto-refresh: only the table's rows, with the down count for the title
  route("GET", "/projects/:project/checks/rows", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    return htmlResponse(checkRows(await checksData(access, project, event.url.searchParams)).text);
  });

  route("GET", "/projects/:project/checks/new", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: changes are not allowed");
    return htmlResponse(formHtml(access.viewer, project, { values: EMPTY_FORM, error: null, action: `/projects/${project.id}/checks/new`, title: "Add check" }));
  });

  const formHtml = (viewer: Viewer, project: Project, opts: { values: CheckFormValues; error: string | null; action: string; title: string; whatIf?: WhatIf | null }) =>
    checkFormPage(viewer, { ...opts, project, preview: previewOf(opts.values, clock.now()) });
  /** The edit form's settings tried on the check's logged pings: the API's simulate, as one line. */
  const whatIfOf = async (project: Project, check: Check, values: CheckFormValues): Promise<WhatIf> => {
    const untilAt = clock.now();
    const request = unwrap(simulationRequestOf(checkBodyOf(values) as JsonObject)); // already valid as an update
    const { pings } = unwrap(await pool.listPings(project.id, check.uuid));
    if (pings.length === 0) return { windowMs: null, downCount: 0, downtimeMs: 0 };
    const result = unwrap(await simulateStoredCheck(deps, project, check, pings, request, untilAt));
    return { windowMs: untilAt - result.sinceAt, downCount: result.downCount, downtimeMs: result.downtimeMs };
  };

  route("POST", "/projects/:project/checks/new", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    const values = formValuesOf(form);
    const page = { values, action: `/projects/${project.id}/checks/new`, title: "Add check" };
    const request = checkRequestOf(checkBodyOf(values), null);
    if (!request.ok) return htmlResponse(formHtml(access.viewer, project, { ...page, error: reasonOf(request.failure) }), 400);
    if (form.get("action") === "preview") return htmlResponse(formHtml(access.viewer, project, { ...page, error: null }));
    const created = await pool.createCheck(project.id, request.value.spec, [], clock.now());
    if (!created.ok) return htmlResponse(formHtml(access.viewer, project, { ...page, error: reasonOf(created.failure) }), 400);
    return redirect(`/checks/${created.value.check.uuid}?done=created`);
  });

  route("GET", "/projects/:project/settings", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const checks = await pool.listChecks(project.id, { tags: [] });
    return htmlResponse(settingsPage(access.viewer, { project, badges: presentBadges(project, checks, config).badges, at: clock.now(), mute: null }));
  });

  // the project-wide mute (a maintenance window): the admin API's rules and texts
  route("POST", "/projects/:project/mute", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    if (access.caller !== "admin") throw httpError(403, "only the admin token mutes a project");
    const until = (form.get("until") ?? "").trim();
    const untilAt = projectMuteOf({ until: until === "" ? null : until }); // an emptied field unmutes
    if (!untilAt.ok) {
      const checks = await pool.listChecks(project.id, { tags: [] });
      const page = settingsPage(access.viewer, { project, badges: presentBadges(project, checks, config).badges, at: clock.now(), mute: { error: reasonOf(untilAt.failure), until } });
      return htmlResponse(page, 400);
    }
    unwrap(await pool.muteProject(project.id, untilAt.value, clock.now()));
    return redirect(`/projects/${project.id}/settings`);
  });

  // --- one check -------------------------------------------------------------------------------

  route("GET", "/checks/:ref", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    const flips = unwrap(await pool.listFlips(project.id, { uuid: check.uuid }, {}));
    let pings = null;
    if (!access.viewer.readonly) { // as the API: the ping log needs the read-write key
      const log = unwrap(await pool.listPings(project.id, check.uuid));
      pings = log.pings.map((ping, i) => ({ ping, durationMs: log.durationsMs[i] ?? null }));
    }
    const notice = NOTICES[event.url.searchParams.get("done") ?? ""] ?? null;
    const channels = access.viewer.readonly ? [] : await pool.listChannels(project.id);
    const integrations = checkIntegrations(access.viewer, { check, ref, channels });
    return htmlResponse(checkPage(access.viewer, { project, check, ref, at: clock.now(), siteRoot: config.siteRoot, flips, pings, notice, integrations }));
  });

  // one integration on or off for this check: the API's "channels" field, as a list of ids
  route("POST", "/checks/:ref/integrations", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    const form = await writeForm(event, access);
    const channel = form.get("channel") ?? "";
    const ids = new Set(check.channels);
    if (form.get("on") === "1") ids.add(channel);
    else ids.delete(channel);
    const request = unwrap(checkRequestOf({ channels: [...ids].join(",") }, check));
    unwrap(await pool.updateCheck(project.id, check.uuid, request.spec, clock.now())); // an unknown id: the API's 400
    return redirect(`/checks/${ref}?done=saved`);
  });

  // --- integrations ----------------------------------------------------------------------------

  type IntegrationsForm = { error: string | null; values: { kind: string; name: string; value: string }; tested?: { channel: Channel; error: string | null } };
  const NO_FORM = { error: null, values: { kind: "webhook", name: "", value: "" } };
  const integrationsHtml = async (access: Access, project: Project, form: IntegrationsForm) => {
    const [channels, outbox, checks] = await Promise.all([pool.listChannels(project.id), pool.listOutbox(), pool.listChecks(project.id, { tags: [] })]);
    const states = presentChannelStates(channels, outbox.filter((entry) => entry.projectId === project.id)).channels;
    const rows = channels.map((channel, i) => ({
      channel,
      pending: Number(states[i].pending),
      failed: Number(states[i].failed),
      lastError: typeof states[i].last_error === "string" ? states[i].last_error : null,
      checks: checks.filter((c) => c.channels.includes(channel.id)),
    }));
    return integrationsPage(access.viewer, { project, rows, canAdd: access.caller === "admin", ...form });
  };

  route("GET", "/projects/:project/integrations", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: integrations are not shown"); // as GET /api/v3/channels/
    return htmlResponse(await integrationsHtml(access, project, NO_FORM));
  });

  route("POST", "/projects/:project/integrations/:channel/test", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    await writeForm(event, access);
    const channel = (await pool.listChannels(project.id)).find((c) => c.id === param(event, "channel"));
    if (channel === undefined) throw httpError(404, "integration not found");
    const error = await deps.sendTestNotification(project, channel, clock.now());
    return htmlResponse(await integrationsHtml(access, project, { ...NO_FORM, tested: { channel, error } }));
  });

  // adding an integration is the admin API's operation: only the admin token does it here too
  route("POST", "/projects/:project/integrations", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    if (access.caller !== "admin") throw httpError(403, "only the admin token adds integrations");
    const values = { kind: form.get("kind") ?? "", name: form.get("name") ?? "", value: form.get("value") ?? "" };
    const failed = (error: string) => integrationsHtml(access, project, { error, values }).then((page) => htmlResponse(page, 400));
    let value: unknown = values.value.trim();
    // as the CLI's --value: JSON when it starts with { or ", else a plain string
    if (typeof value === "string" && (value.startsWith("{") || value.startsWith('"'))) {
      try { value = JSON.parse(value); } catch { return failed("json validation error: value is not valid JSON"); }
    }
    const input = channelInputOf({ kind: values.kind, name: values.name, value });
    if (!input.ok) return failed(reasonOf(input.failure));
    const added = await pool.addChannel(project.id, input.value, clock.now());
    if (!added.ok) return failed(reasonOf(added.failure));
    return redirect(`/projects/${project.id}/integrations`);
  });

  const action = (name: string, act: (projectId: string, uuid: string, at: Millis, event: H3Event) => Promise<void>) =>
    route("POST", `/checks/:ref/${name}`, async (event) => {
      const access = requireAccess(event);
      const { project, check } = await checkFor(access, param(event, "ref"));
      await writeForm(event, access);
      await act(project.id, check.uuid, clock.now(), event);
      return redirect(name === "delete" ? `/projects/${project.id}/checks` : `/checks/${check.uuid}?done=${name}`);
    });
  action("pause", async (projectId, uuid, at) => { unwrap(await pool.pauseCheck(projectId, uuid, at)); });
  action("resume", async (projectId, uuid, at) => { unwrap(await pool.resumeCheck(projectId, uuid, at)); });
  action("delete", async (projectId, uuid, at) => { unwrap(await pool.deleteCheck(projectId, uuid, at)); });
  action("ping", async (projectId, uuid, at, event) => {
    const node = event.runtime?.node?.req;
    unwrap(await pool.ping(projectId, {
      target: { uuid }, signal: "success", exitStatus: null, method: "POST", scheme: "http",
      remoteAddr: remoteAddress(event.req.headers.get("x-forwarded-for") ?? undefined, node?.socket?.remoteAddress ?? event.req.ip),
      ua: "hcd dashboard (Ping now)", rid: null, body: null, at,
    }));
  });

  route("GET", "/checks/:ref/delete", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: changes are not allowed");
    return htmlResponse(deletePage(access.viewer, { project, check, ref }));
  });

  route("GET", "/checks/:ref/edit", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: changes are not allowed");
    return htmlResponse(formHtml(access.viewer, project, { values: formValuesOfCheck(check), error: null, action: `/checks/${ref}/edit`, title: `Edit ${check.name}` }));
  });

  route("POST", "/checks/:ref/edit", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    const form = await writeForm(event, access);
    const values = formValuesOf(form);
    const page = { values, action: `/checks/${ref}/edit`, title: `Edit ${check.name}` };
    const request = checkRequestOf(checkBodyOf(values), check);
    if (!request.ok) return htmlResponse(formHtml(access.viewer, project, { ...page, error: reasonOf(request.failure) }), 400);
    if (form.get("action") === "preview") return htmlResponse(formHtml(access.viewer, project, { ...page, error: null, whatIf: await whatIfOf(project, check, values) }));
    unwrap(await pool.updateCheck(project.id, check.uuid, request.value.spec, clock.now()));
    return redirect(`/checks/${ref}?done=saved`);
  });

  route("GET", "/checks/:ref/pings/:n/body", async (event) => {
    const access = requireAccess(event);
    const { project, check } = await checkFor(access, param(event, "ref"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: ping bodies are not shown");
    const n = pingNumberOf(param(event, "n"));
    if (n === null) throw httpError(404, "ping not found");
    const body = unwrap(await pool.pingBody(project.id, check.uuid, n));
    // always text, never rendered: the stored bytes as text/plain in a sandbox
    return new HTTPResponse(body as BodyInit, {
      status: 200,
      headers: { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8", "content-security-policy": "sandbox; default-src 'none'" },
    });
  });

  // --- static files ----------------------------------------------------------------------------

  for (const [name, asset] of Object.entries(assets)) {
    app.get(`/static/${name}`, () => new HTTPResponse(asset.body, {
      headers: { ...SECURITY_HEADERS, "content-type": asset.type, "cache-control": "public, max-age=300" },
    }));
  }
}

class SignInNeeded extends Error {}

const NOTICES: Record<string, string> = {
  created: "Check created.", saved: "Changes saved.", pause: "Check paused.", resume: "Check resumed.", ping: "Ping sent.",
};

const EMPTY_FORM: CheckFormValues = { name: "", slug: "", tags: "", desc: "", kind: "simple", timeout: "86400", grace: "3600", schedule: "", tz: "UTC", failure_threshold: "1", reminder_interval: "0", muted_until: "" };

/** Returns how a viewer's URLs name a check: uuid, or unique_key for read-only keys (the uuid is a ping capability). */
function refFor(viewer: Viewer, check: Check): string {
  return viewer.readonly ? uniqueKeyOf(check.uuid) : check.uuid;
}

function formValuesOf(form: URLSearchParams): CheckFormValues {
  const get = (name: string) => form.get(name) ?? "";
  return {
    name: get("name"), slug: get("slug"), tags: get("tags"), desc: get("desc"),
    kind: get("kind") === "cron" ? "cron" : "simple",
    timeout: get("timeout").trim(), grace: get("grace").trim(), schedule: get("schedule"), tz: get("tz").trim(),
    failure_threshold: get("failure_threshold").trim(), reminder_interval: get("reminder_interval").trim(), muted_until: get("muted_until").trim(),
  };
}

function formValuesOfCheck(check: Check): CheckFormValues {
  return {
    name: check.name, slug: check.slug, tags: check.tags, desc: check.desc, kind: check.kind === "simple" ? "simple" : "cron",
    timeout: String(Math.floor(check.timeoutMs / 1000)), grace: String(Math.floor(check.graceMs / 1000)), schedule: check.schedule, tz: check.tz,
    failure_threshold: String(check.failureThreshold ?? 1), reminder_interval: String(Math.floor((check.reminderIntervalMs ?? 0) / 1000)),
    muted_until: check.mutedUntilAt == null ? "" : new Date(check.mutedUntilAt).toISOString(),
  };
}

/** Returns the API request body the form stands for: the API's own rules then judge it, with its error texts. */
function checkBodyOf(values: CheckFormValues): Record<string, unknown> {
  const number = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : text); // not a number: the API says so
  const body: Record<string, unknown> = { name: values.name, slug: values.slug, tags: values.tags, desc: values.desc };
  if (values.kind === "simple") {
    if (values.timeout !== "") body.timeout = number(values.timeout);
  } else {
    body.schedule = values.schedule;
    if (values.tz !== "") body.tz = values.tz;
  }
  if (values.grace !== "") body.grace = number(values.grace);
  if (values.failure_threshold !== "") body.failure_threshold = number(values.failure_threshold);
  if (values.reminder_interval !== "") body.reminder_interval = number(values.reminder_interval);
  body.muted_until = values.muted_until === "" ? null : values.muted_until; // an emptied field unmutes
  return body;
}

/** The next five expected pings of a cron / OnCalendar form (none for simple periods or invalid input). */
function previewOf(values: CheckFormValues, at: Millis): Millis[] {
  if (values.kind !== "cron" || values.schedule.trim() === "") return [];
  const next: Millis[] = [];
  let after = at;
  for (let i = 0; i < 5; i++) {
    const due = nextAfter(values.schedule, values.tz || "UTC", after);
    if (due === null) break;
    next.push(due);
    after = due;
  }
  return next;
}

function filterOf(params: URLSearchParams): ChecksFilter {
  const status = params.get("status") ?? "";
  const sort = params.get("sort");
  return {
    q: params.get("q") ?? "",
    status: (STATUS_WORDS as readonly string[]).includes(status) ? status : "",
    tag: params.get("tag") ?? "",
    sort: sort === "name" || sort === "last_ping" ? sort : "status",
  };
}

/** Down first (then late, started, up, new, paused), then by name; or by name; or most recent ping first. */
function sortChecks(checks: Check[], sort: ChecksFilter["sort"], wordOf: (check: Check) => StatusWord): void {
  const byName = (a: Check, b: Check) => a.name.localeCompare(b.name) || a.uuid.localeCompare(b.uuid);
  if (sort === "name") checks.sort(byName);
  else if (sort === "last_ping") checks.sort((a, b) => (b.lastPingAt ?? -1) - (a.lastPingAt ?? -1) || byName(a, b));
  else {
    const rank = (c: Check) => STATUS_WORDS.indexOf(wordOf(c));
    checks.sort((a, b) => rank(a) - rank(b) || byName(a, b));
  }
}

/**
 * Refuses a POST that a browser marked as coming from another site (Origin is neither SITE_ROOT's origin
 * nor the Host it was sent to): with the SameSite cookie and the CSRF token this also covers the sign-in
 * form, which has no session yet.
 */
function refuseCrossSite(headers: Headers, siteOrigin: string): void {
  const origin = headers.get("origin");
  if (origin === null || origin === siteOrigin) return; // not a browser form post, or an old browser: the CSRF token still applies
  let host: string | null = null;
  try { host = new URL(origin).host; } catch { /* "null" or garbage: refused below */ }
  if (host === null || host !== headers.get("host")) throw httpError(403, "cross-site request refused");
}

function param(event: H3Event, name: string): string {
  return event.context.params?.[name] ?? "";
}

async function formOf(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(new TextDecoder().decode(await readBodyBytes(event.req)));
}

/** Returns the value of one cookie of a Cookie header, or null. */
export function cookieOf(header: string | null, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function sessionCookie(value: string, opts: { maxAgeMs: Millis; secure: boolean }): string {
  return `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(opts.maxAgeMs / 1000)}${opts.secure ? "; Secure" : ""}`;
}

function htmlResponse(body: string, status = 200): HTTPResponse {
  return new HTTPResponse(body, { status, headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8" } });
}

function redirect(location: string, headers: Record<string, string> = {}): HTTPResponse {
  return new HTTPResponse(null, { status: 303, headers: { ...SECURITY_HEADERS, ...headers, location } });
}

/** Failed sign-ins per client address in fixed one-minute windows; a new minute forgets every address. */
class FailureCounter {
  readonly #limit: number;
  #window = -1;
  #counts = new Map<string, number>();
  constructor(limit: number) {
    this.#limit = limit;
  }
  #roll(at: Millis): void {
    const window = Math.floor(at / MINUTE);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts = new Map();
    }
  }
  isBlocked(address: string, at: Millis): boolean {
    this.#roll(at);
    return (this.#counts.get(address) ?? 0) >= this.#limit;
  }
  count(address: string, at: Millis): void {
    this.#roll(at);
    this.#counts.set(address, (this.#counts.get(address) ?? 0) + 1);
  }
}

type Asset = { readonly body: string; readonly type: string };

/** Reads the stylesheet and script once: from the sources next to this file, or from the repository when running from dist/. */
function loadAssets(): Record<string, Asset> {
  const candidates = [new URL("./static/", import.meta.url), new URL("../../../http/dashboard/static/", import.meta.url)];
  const dir = candidates.find((url) => existsSync(new URL("dashboard.js", url))) ?? candidates[0];
  return {
    "dashboard.js": { body: readFileSync(new URL("dashboard.js", dir), "utf8"), type: "text/javascript; charset=utf-8" },
    "dashboard.css": { body: readFileSync(new URL("dashboard.css", dir), "utf8"), type: "text/css; charset=utf-8" },
  };
}
