// The integrations page: each integration with its delivery state, "Test" (sent at once through the
// process's test notification; shell and apprise only by the operator), removing one (any session that
// may write), and adding one from its admin API value (scripts); the add and edit pages are in
// integration-form-routes.ts.
import type { Channel, Project } from "../../engine/model.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { channelInputOf, groupProblem, preparedInput } from "../admin-input.ts";
import { allows, mayConfigureOperatorKinds, permit, permitKind } from "./permits.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import { valueOfFields } from "./kind-forms.ts";
import { presentChannelStates } from "../present.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import type { Access, DashboardContext } from "./context.ts";
import { integrationsPage, removeIntegrationPage } from "./integration-pages.ts";
import { errorPage } from "./pages.ts";
import { readonlyWho } from "./page-frame.ts";
import { integrationFormRoutes } from "./integration-form-routes.ts";
import { lastDeliveries } from "./last-deliveries.ts";
import { htmlResponse, param, redirect } from "./responses.ts";
import { livePageResponse } from "./live-page.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";

/** Registers the integrations pages. */
export function integrationRoutes(ctx: DashboardContext): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock } = deps;
  const operatorOnly = (channel: Channel) => "fields" in channel.value && deps.serviceKinds.operatorOnly(channel.value.kind);

  type Shown = { tested?: { channel: Channel; error: string | null }; notice?: string | null; added?: Channel };
  /** Each session's last "Test" result, until the page it was redirected to shows it. */
  const testResults = new BoundedMap<string, { channelId: string; error: string | null }>(1_000);
  const integrationsHtml = async (access: Access, project: Project, shown: Shown) => {
    const [channels, outbox, checks] = await Promise.all([
      pool.listChannels(project.id),
      pool.listOutbox(),
      pool.listChecks(project.id, { tags: [] }),
    ]);
    const entries = outbox.filter((entry) => entry.projectId === project.id);
    const states = presentChannelStates(channels, entries).channels;
    const last = await lastDeliveries(deps, project, channels, checks, entries);
    const rows = channels.map((channel, i) => ({
      channel,
      pending: Number(states[i].pending),
      failed: Number(states[i].failed),
      lastError: typeof states[i].last_error === "string" ? states[i].last_error : null,
      checks: checks.filter((c) => c.channels.includes(channel.id)),
      last: last.get(channel.id) ?? null,
    }));
    const canEdit = (channel: Channel) =>
      allows(access, "integrations.change", { keys: false }) && (!operatorOnly(channel) || mayConfigureOperatorKinds(access));
    return integrationsPage(access.viewer, {
      project,
      rows,
      canAdd: allows(access, "integrations.change", { keys: false }),
      canRemove: allows(access, "integrations.change", { keys: true }),
      canEdit,
      serviceKinds: deps.serviceKinds,
      ...shown,
    });
  };

  route("GET", "/projects/:project/integrations", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: integrations are not shown`); // as GET /api/v3/channels/
    const channels = await pool.listChannels(project.id);
    const result = testResults.get(access.session.id);
    const channel =
      result === undefined || result.channelId !== event.url.searchParams.get("tested")
        ? undefined
        : channels.find((c) => c.id === result.channelId);
    testResults.delete(access.session.id);
    const done = event.url.searchParams.get("done");
    const notice = done === "removed" ? "Integration removed." : done === "saved" ? "Integration saved." : null;
    const added = channels.find((c) => c.id === event.url.searchParams.get("added"));
    const tested = channel === undefined || result === undefined ? undefined : { channel, error: result.error };
    return livePageResponse(
      event,
      await integrationsHtml(access, project, { notice, added: tested === undefined ? added : undefined, tested }),
    );
  });

  route("POST", "/projects/:project/integrations/:channel/test", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    await writeForm(event, access);
    const channel = (await pool.listChannels(project.id)).find((c) => c.id === param(event, "channel"));
    if (channel === undefined) throw httpError(404, "integration not found");
    permitKind(access, channel.kind, operatorOnly(channel)); // "Test" runs nothing but what the operator configured
    const error = await deps.sendTestNotification(project, channel, clock.now());
    // POST, redirect, GET: the result is shown once by the page the browser is sent to, so a reload
    // shows the list again instead of sending another test
    testResults.set(access.session.id, { channelId: channel.id, error });
    return redirect(`/projects/${project.id}/integrations?tested=${channel.id}`);
  });

  route("GET", "/projects/:project/integrations/:channel/remove", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    permit(access, "integrations.change", { keys: true, refusal: `${readonlyWho(access.viewer)}: changes are not allowed` });
    const channel = (await pool.listChannels(project.id)).find((c) => c.id === param(event, "channel"));
    if (channel === undefined) throw httpError(404, "integration not found");
    const checks = (await pool.listChecks(project.id, { tags: [] })).filter((c) => c.channels.includes(channel.id));
    return htmlResponse(removeIntegrationPage(access.viewer, { project, channel, checks }));
  });

  route("POST", "/projects/:project/integrations/:channel/remove", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    await writeForm(event, access); // the CSRF token, and no read-only session
    permit(access, "integrations.change", { keys: true, refusal: `${readonlyWho(access.viewer)}: changes are not allowed` });
    const at = clock.now();
    const removed = unwrap(await pool.removeChannel(project.id, param(event, "channel"), at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "channel.removed",
      target: auditTarget.channel(removed),
      at,
    });
    return redirect(`/projects/${project.id}/integrations?done=removed`);
  });

  // adding an integration from its value as the admin API takes it (scripts; the pages use integration-form-routes.ts)
  route("POST", "/projects/:project/integrations", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    permit(access, "integrations.change", { keys: false, refusal: "only the admin token adds integrations" });
    const values = { kind: form.get("kind") ?? "", name: form.get("name") ?? "", value: form.get("value") ?? "" };
    const failed = async (error: string) => htmlResponse(errorPage(access.viewer, 400, error), 400);
    const kind = SERVICE_KINDS.find((k) => k === values.kind);
    if (kind !== undefined) permitKind(access, kind, deps.serviceKinds.operatorOnly(kind));
    // a kind's own form: its inputs are the value's fields
    let value: unknown =
      form.get("form") === "fields" && kind !== undefined ? valueOfFields(form, deps.serviceKinds.form(kind)) : values.value.trim();
    // as the CLI's --value: JSON when it starts with { or ", else a plain string
    if (typeof value === "string" && (value.startsWith("{") || value.startsWith('"'))) {
      try {
        value = JSON.parse(value);
      } catch {
        return failed("json validation error: value is not valid JSON");
      }
    }
    const input = channelInputOf({ kind: values.kind, name: values.name, value }, deps.serviceKinds);
    if (!input.ok) return failed(reasonOf(input.failure));
    const prepared = await preparedInput(input.value, deps.serviceKinds);
    if (!prepared.ok) return failed(reasonOf(prepared.failure));
    const loop = groupProblem(prepared.value, await pool.listChannels(project.id));
    if (loop !== null) return failed(loop);
    const at = clock.now();
    const added = await pool.addChannel(project.id, prepared.value, at);
    if (!added.ok) return failed(reasonOf(added.failure));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "channel.added",
      target: auditTarget.channel(added.value),
      at,
    });
    return redirect(`/projects/${project.id}/integrations?added=${added.value.id}`);
  });
  integrationFormRoutes(ctx, { operatorOnly });
}
