// A check's pages: its page with events, its integration toggles, Pause / Resume / Delete / Ping now, the
// edit form (with the what-if preview), and a ping's body as text.
import type { H3Event } from "h3";
import { HTTPResponse } from "h3";
import type { Millis } from "../../engine/model.ts";
import { httpError, unwrap } from "../errors.ts";
import { checkRequestOf, isUniqueKey, pingNumberOf } from "../input.ts";
import { remoteAddress } from "../routes/pings.ts";
import { checkBodyOf, formValuesOf, formValuesOfCheck, keepStoredDesc, NOTICES, refFor, withPreset } from "./check-form.ts";
import type { AuditAction } from "../../host/audit.ts";
import { auditActorOf, recordDashboardChange } from "./audit-routes.ts";
import { actorName, auditTarget } from "../../host/audit.ts";
import type { Access, DashboardContext } from "./context.ts";
import { checkIntegrations } from "./integration-pages.ts";
import { checkPage, deletePage } from "./pages.ts";
import { readonlyWho } from "./page-frame.ts";
import { checkNotices, eventsPageOf } from "./check-history.ts";
import { pingNowPlan } from "./ping-now.ts";
import { livePageResponse } from "./live-page.ts";
import { scheduleKindProblem } from "./schedule-kind.ts";
import { htmlResponse, param, redirect, SECURITY_HEADERS } from "./responses.ts";

/** Registers a check's pages and actions. */
export function checkPageRoutes(ctx: DashboardContext): void {
  const { deps, route, requireAccess, writeForm, checkFor, formHtml, whatIfOf } = ctx;
  const { pool, clock, config } = deps;

  // the links in notifications: SITE_ROOT/cloaked/<unique_key>/ (the reference's check link) and PagerDuty's
  // client_url SITE_ROOT/checks/<uuid>/details/ open the check's page; signed out, after the sign-in
  const openCheck = async (event: H3Event) => {
    const access = requireAccess(event);
    const key = param(event, "ref");
    const projects = access.caller === "admin" ? pool.listProjects() : [access.caller.project];
    for (const project of isUniqueKey(key) ? projects : []) {
      const found = await pool.getCheck(project.id, { uniqueKey: key });
      if (found.ok) return redirect(`/checks/${refFor(access.viewer, found.value)}`);
    }
    return redirect(`/checks/${(await checkFor(access, key)).ref}`); // a uuid; anything else is a 404
  };
  for (const path of ["/cloaked/:ref", "/cloaked/:ref/", "/checks/:ref/details", "/checks/:ref/details/"]) route("GET", path, openCheck);

  route("GET", "/checks/:ref", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    const eventsPage = eventsPageOf(event.url.searchParams);
    const flips = unwrap(await pool.listFlips(project.id, { uuid: check.uuid }, {}));
    let pings = null;
    if (!access.viewer.readonly) {
      // as the API: the ping log needs the read-write key
      const log = unwrap(await pool.listPings(project.id, check.uuid));
      pings = log.pings.map((ping, i) => ({ ping, durationMs: log.durationsMs[i] ?? null }));
    }
    const notice = NOTICES[event.url.searchParams.get("done") ?? ""] ?? null;
    const channels = access.viewer.readonly ? [] : await pool.listChannels(project.id);
    const integrations = checkIntegrations(access.viewer, { check, ref, channels });
    const names = new Map((await pool.listChecks(project.id, { tags: [] })).map((c) => [c.uuid, c.name]));
    const nameOf = (uuid: string) => names.get(uuid);
    const notices = access.viewer.readonly ? [] : checkNotices(await pool.listOutbox(), check.uuid);
    const sent = access.viewer.readonly ? [] : unwrap(await pool.listSent(project.id, check.uuid));
    const pingEmail = config.smtpPort === null ? null : `${check.uuid}@${config.emailDomain}`; // as the API's ping_email
    const channelNames = new Map(channels.map((c) => [c.id, c.name === "" ? c.kind : `${c.name} (${c.kind})`]));
    const channelNameOf = (id: string) => channelNames.get(id);
    const unknown = await pool.unknownTime(project.id);
    return livePageResponse(
      event,
      checkPage(access.viewer, {
        project,
        check,
        ref,
        at: clock.now(),
        siteRoot: config.siteRoot,
        flips,
        pings,
        notice,
        integrations,
        nameOf,
        channelNameOf,
        eventsPage,
        notices,
        sent,
        pingEmail,
        unknown,
      }),
    );
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
    const at = clock.now();
    const updated = unwrap(await pool.updateCheck(project.id, check.uuid, request.spec, at)); // an unknown id: the API's 400
    await recordDashboardChange(ctx, access, { projectId: project.id, action: "check.updated", target: auditTarget.check(updated), at });
    return redirect(`/checks/${ref}?done=saved`);
  });

  const action = (
    name: string,
    recorded: AuditAction,
    act: (projectId: string, uuid: string, at: Millis, access: Access) => Promise<void>,
  ) =>
    route("POST", `/checks/:ref/${name}`, async (event) => {
      const access = requireAccess(event);
      const { project, check } = await checkFor(access, param(event, "ref"));
      await writeForm(event, access);
      const at = clock.now();
      await act(project.id, check.uuid, at, access);
      await recordDashboardChange(ctx, access, { projectId: project.id, action: recorded, target: auditTarget.check(check), at });
      return redirect(name === "delete" ? `/projects/${project.id}/checks?done=delete` : `/checks/${check.uuid}?done=${name}`);
    });
  action("pause", "check.paused", async (projectId, uuid, at) => {
    unwrap(await pool.pauseCheck(projectId, uuid, at));
  });
  action("resume", "check.resumed", async (projectId, uuid, at) => {
    unwrap(await pool.resumeCheck(projectId, uuid, at));
  });
  action("delete", "check.deleted", async (projectId, uuid, at) => {
    unwrap(await pool.deleteCheck(projectId, uuid, at));
  });
  // who acknowledged, as the audit log names them: the user's email, "admin token", or the key's session
  action("acknowledge", "check.acknowledged", async (projectId, uuid, at, access) => {
    unwrap(await pool.acknowledgeCheck(projectId, uuid, actorName(auditActorOf(access)), at));
  });
  // a success, whatever the check's filters (ping-now.ts); the notice says what was sent
  route("POST", "/checks/:ref/ping", async (event) => {
    const access = requireAccess(event);
    const { project, check } = await checkFor(access, param(event, "ref"));
    await writeForm(event, access);
    const plan = pingNowPlan(check);
    if (!plan.ok) throw httpError(400, plan.error);
    const node = event.runtime?.node?.req;
    unwrap(
      await pool.ping(project.id, {
        target: { uuid: check.uuid },
        signal: "success",
        exitStatus: null,
        method: "POST",
        scheme: "http",
        remoteAddr: remoteAddress(event.req.headers.get("x-forwarded-for") ?? undefined, node?.socket?.remoteAddress ?? event.req.ip),
        ua: "hcd dashboard (Ping now)",
        rid: null,
        body: plan.body,
        at: clock.now(),
      }),
    );
    return redirect(`/checks/${check.uuid}?done=${plan.done}`);
  });

  route("GET", "/checks/:ref/delete", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: changes are not allowed`);
    return htmlResponse(deletePage(access.viewer, { project, check, ref }));
  });

  route("GET", "/checks/:ref/edit", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: changes are not allowed`);
    return htmlResponse(
      await formHtml(access.viewer, project, {
        values: formValuesOfCheck(check),
        error: null,
        action: `/checks/${ref}/edit`,
        title: `Edit ${check.name}`,
        uuid: check.uuid,
      }),
    );
  });

  route("POST", "/checks/:ref/edit", async (event) => {
    const access = requireAccess(event);
    const { project, check, ref } = await checkFor(access, param(event, "ref"));
    const form = await writeForm(event, access);
    const values = keepStoredDesc(formValuesOf(form), check);
    const page = { values, action: `/checks/${ref}/edit`, title: `Edit ${check.name}`, uuid: check.uuid };
    const picked = withPreset(values, form); // a quick pick pressed: the form again, filled in
    if (picked !== null) return htmlResponse(await formHtml(access.viewer, project, { ...page, values: picked, error: null }));
    const kindProblem = scheduleKindProblem(values, formValuesOfCheck(check));
    if (kindProblem !== null) return htmlResponse(await formHtml(access.viewer, project, { ...page, error: kindProblem }), 400);
    const request = checkRequestOf(checkBodyOf(values), check);
    if (!request.ok) return htmlResponse(await formHtml(access.viewer, project, { ...page, error: request.failure }), 400);
    if (form.get("action") === "preview")
      return htmlResponse(
        await formHtml(access.viewer, project, {
          ...page,
          error: null,
          previewAsked: true,
          whatIf: await whatIfOf(project, check, values),
        }),
      );
    // the shard judges depends_on (a cycle, another project's check): its 400 is the form's, next to the field
    const at = clock.now();
    const updated = await pool.updateCheck(project.id, check.uuid, request.value.spec, at);
    if (!updated.ok && updated.failure.code === "invalid")
      return htmlResponse(await formHtml(access.viewer, project, { ...page, error: updated.failure }), 400);
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "check.updated",
      target: auditTarget.check(unwrap(updated)),
      at,
    });
    return redirect(`/checks/${ref}?done=saved`);
  });

  route("GET", "/checks/:ref/pings/:n/body", async (event) => {
    const access = requireAccess(event);
    const { project, check } = await checkFor(access, param(event, "ref"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: ping bodies are not shown`);
    const n = pingNumberOf(param(event, "n"));
    if (n === null) throw httpError(404, "ping not found");
    const body = unwrap(await pool.pingBody(project.id, check.uuid, n));
    // always text, never rendered: the stored bytes as text/plain in a sandbox
    return new HTTPResponse(body as BodyInit, {
      status: 200,
      headers: {
        ...SECURITY_HEADERS,
        "content-type": "text/plain; charset=utf-8",
        "content-security-policy": "sandbox; default-src 'none'",
      },
    });
  });
}
