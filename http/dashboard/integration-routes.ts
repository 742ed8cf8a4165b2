// The integrations page: each integration with its delivery state, "Test" (sent at once through the
// process's test notification), adding one (the admin API's operation: admin token only), and removing
// one (any session that may write: as "Test", it acts on the project's own integrations); editing one
// (admin token only, as adding).
import type { Channel, Project, ServiceFields } from "../../engine/model.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { channelEditOf, channelInputOf, channelRenameOf, groupProblem, preparedInput } from "../admin-input.ts";
import type { JsonObject } from "../body.ts";
import { allows, permit, permitKind } from "./permits.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import { keptSecrets, valueOfFields } from "./kind-forms.ts";
import { presentChannelStates } from "../present.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import type { Access, DashboardContext } from "./context.ts";
import { editIntegrationPage, integrationsPage, removeIntegrationPage } from "./integration-pages.ts";
import { htmlResponse, param, redirect } from "./responses.ts";
import { livePageResponse } from "./live-page.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";

/** Registers the integrations pages. */
export function integrationRoutes(ctx: DashboardContext): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock } = deps;
  const operatorOnly = (channel: Channel) => "fields" in channel.value && deps.serviceKinds.operatorOnly(channel.value.kind);

  type IntegrationsForm = { error: string | null; values: { kind: string; name: string; value: string }; tested?: { channel: Channel; error: string | null }; notice?: string | null };
  /** Each session's last "Test" result, until the page it was redirected to shows it. */
  const testResults = new BoundedMap<string, { channelId: string; error: string | null }>(1_000);
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
    return integrationsPage(access.viewer, { project, rows, canAdd: allows(access, "integrations.change", { keys: false }), canRemove: allows(access, "integrations.change", { keys: true }), serviceKinds: deps.serviceKinds, ...form });
  };

  route("GET", "/projects/:project/integrations", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: integrations are not shown"); // as GET /api/v3/channels/
    const result = testResults.get(access.session.id);
    const channel = result === undefined || result.channelId !== event.url.searchParams.get("tested") ? undefined
      : (await pool.listChannels(project.id)).find((c) => c.id === result.channelId);
    testResults.delete(access.session.id);
    const notice = event.url.searchParams.get("done") === "removed" ? "Integration removed." : null;
    return livePageResponse(event, await integrationsHtml(access, project, channel === undefined || result === undefined ? { ...NO_FORM, notice } : { ...NO_FORM, notice, tested: { channel, error: result.error } }));
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
    permit(access, "integrations.change", { keys: true, refusal: "read-only key: changes are not allowed" });
    const channel = (await pool.listChannels(project.id)).find((c) => c.id === param(event, "channel"));
    if (channel === undefined) throw httpError(404, "integration not found");
    const checks = (await pool.listChecks(project.id, { tags: [] })).filter((c) => c.channels.includes(channel.id));
    return htmlResponse(removeIntegrationPage(access.viewer, { project, channel, checks }));
  });

  route("POST", "/projects/:project/integrations/:channel/remove", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    await writeForm(event, access); // the CSRF token, and no read-only session
    permit(access, "integrations.change", { keys: true, refusal: "read-only key: changes are not allowed" });
    const at = clock.now();
    const removed = unwrap(await pool.removeChannel(project.id, param(event, "channel"), at));
    await recordDashboardChange(ctx, access, { projectId: project.id, action: "channel.removed", target: auditTarget.channel(removed), at });
    return redirect(`/projects/${project.id}/integrations?done=removed`);
  });

  // editing, as adding, is the admin API's operation: only the admin token does it here too
  const editable = async (access: Access, project: Project, channelId: string): Promise<Channel> => {
    permit(access, "integrations.change", { keys: false, refusal: "only the admin token edits integrations" });
    const channel = (await pool.listChannels(project.id)).find((c) => c.id === channelId);
    if (channel === undefined) throw httpError(404, "integration not found");
    permitKind(access, channel.kind, operatorOnly(channel));
    return channel;
  };

  route("GET", "/projects/:project/integrations/:channel/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, "read-only key: changes are not allowed");
    const channel = await editable(access, project, param(event, "channel"));
    return htmlResponse(editIntegrationPage(access.viewer, { project, channel, serviceKinds: deps.serviceKinds, error: null }));
  });

  route("POST", "/projects/:project/integrations/:channel/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access); // the CSRF token, and no read-only session
    const channel = await editable(access, project, param(event, "channel"));
    const name = form.get("name") ?? "";
    const stored = channel.value;
    const fromFields = "fields" in stored && form.get("form") === "fields";
    const fields = "fields" in stored ? deps.serviceKinds.form(stored.kind) : [];
    const given = fromFields ? valueOfFields(form, fields) : {};
    const raw = (form.get("value") ?? "").trim();
    const posted = fromFields ? { name, fields: given as ServiceFields } : { name, value: raw };
    const failed = (error: string) => htmlResponse(editIntegrationPage(access.viewer, { project, channel, serviceKinds: deps.serviceKinds, error, posted }), 400);
    let input;
    if (fromFields && "fields" in stored) {
      // the kind's own form: a secret left empty keeps the stored one (the form never shows it), unless the destination changed
      const kept = keptSecrets(given, fields, stored.fields);
      if ("problem" in kept) return failed(kept.problem);
      input = channelEditOf({ name, value: kept.value as JsonObject }, channel, deps.serviceKinds);
    } else if (raw === "") {
      input = channelRenameOf(name, channel); // empty keeps the stored value: it may hold a secret, and is not shown
    } else {
      let value: unknown = raw; // as when adding: JSON when it starts with { or ", else a plain string
      if (raw.startsWith("{") || raw.startsWith('"')) {
        try { value = JSON.parse(raw); } catch { return failed("json validation error: value is not valid JSON"); }
      }
      input = channelEditOf({ name, value: value as JsonObject }, channel, deps.serviceKinds);
    }
    if (!input.ok) return failed(reasonOf(input.failure));
    const prepared = await preparedInput(input.value, deps.serviceKinds);
    if (!prepared.ok) return failed(reasonOf(prepared.failure));
    const loop = groupProblem(prepared.value, await pool.listChannels(project.id));
    if (loop !== null) return failed(loop);
    const at = clock.now();
    const updated = await pool.updateChannel(project.id, channel.id, prepared.value, at);
    if (!updated.ok) return failed(reasonOf(updated.failure));
    await recordDashboardChange(ctx, access, { projectId: project.id, action: "channel.updated", target: auditTarget.channel(updated.value), at });
    return redirect(`/projects/${project.id}/integrations`);
  });

  // adding an integration is the admin API's operation: only the admin token does it here too
  route("POST", "/projects/:project/integrations", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    permit(access, "integrations.change", { keys: false, refusal: "only the admin token adds integrations" });
    const values = { kind: form.get("kind") ?? "", name: form.get("name") ?? "", value: form.get("value") ?? "" };
    const failed = (error: string) => integrationsHtml(access, project, { error, values }).then((page) => htmlResponse(page, 400));
    const kind = SERVICE_KINDS.find((k) => k === values.kind);
    if (kind !== undefined) permitKind(access, kind, deps.serviceKinds.operatorOnly(kind));
    // a kind's own form: its inputs are the value's fields
    let value: unknown = form.get("form") === "fields" && kind !== undefined ? valueOfFields(form, deps.serviceKinds.form(kind)) : values.value.trim();
    // as the CLI's --value: JSON when it starts with { or ", else a plain string
    if (typeof value === "string" && (value.startsWith("{") || value.startsWith('"'))) {
      try { value = JSON.parse(value); } catch { return failed("json validation error: value is not valid JSON"); }
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
    await recordDashboardChange(ctx, access, { projectId: project.id, action: "channel.added", target: auditTarget.channel(added.value), at });
    return redirect(`/projects/${project.id}/integrations`);
  });
}
