// Adding and editing an integration in the dashboard: "Add an integration" lists the kinds this server can
// send and the session may add; each kind's page has what to paste where and its own form; errors show next
// to their field; a saved integration comes back with "Send test notification". Editing shows the stored
// non-secret values; a secret left empty is kept unless the destination changed. The values go through the
// admin API's checks (admin-input.ts), so both accept the same.
import { readonlyWho } from "./page-frame.ts";
import type { H3Event } from "h3";
import type { Channel, ChannelKind, Project } from "../../engine/model.ts";
import { CHANNEL_KINDS } from "../../engine/model.ts";
import type { Failure } from "../../engine/outcome.ts";
import { auditTarget } from "../../host/audit.ts";
import { channelInputOf, groupProblem, preparedInput } from "../admin-input.ts";
import type { KindFormField } from "../deps.ts";
import { httpError, reasonOf } from "../errors.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import type { Access, DashboardContext } from "./context.ts";
import { addIntegrationPage, isServiceKind, kindPage } from "./integration-pages.ts";
import { OWN_FORMS } from "./kind-catalog.ts";
import { keptSecrets, kindFormHtml, valueOfFields } from "./kind-forms.ts";
import { mayConfigureOperatorKinds, permit, permitKind } from "./permits.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

type Errors = Record<string, string>;

/** Registers the add and edit pages; `operatorOnly` tells a channel only the operator configures. */
export function integrationFormRoutes(ctx: DashboardContext, opts: { operatorOnly: (channel: Channel) => boolean }): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock, config, serviceKinds } = deps;

  /** Why this server cannot send `kind`, or null when it can. */
  const unavailable = (kind: ChannelKind): string | null => {
    if (kind === "email") return (config.smtpUrl ?? null) === null ? "SMTP_URL is not set on this server" : null;
    return isServiceKind(kind) ? serviceKinds.unavailable(kind) : null;
  };
  const mayAdd = (access: Access, kind: ChannelKind) =>
    !(isServiceKind(kind) && serviceKinds.operatorOnly(kind)) || mayConfigureOperatorKinds(access);
  const fieldsOf = (kind: ChannelKind): readonly KindFormField[] =>
    isServiceKind(kind) ? serviceKinds.form(kind) : OWN_FORMS[kind].fields;
  const manager = (access: Access) =>
    permit(access, "integrations.change", { keys: false, refusal: "only the admin token adds or edits integrations" });
  const kindOf = (event: H3Event): ChannelKind => {
    const kind = CHANNEL_KINDS.find((k) => k === param(event, "kind"));
    if (kind === undefined) throw httpError(404, "no such kind of integration");
    return kind;
  };

  /** The kind's page with its form: adding (`editing` null) or editing a channel. */
  const formPage = async (
    access: Access,
    project: Project,
    kind: ChannelKind,
    editing: Channel | null,
    state: { values: Record<string, unknown>; name: string; newChecks: boolean; everyFailure: boolean; errors: Errors },
    status = 200,
  ) => {
    const base = `/projects/${project.id}/integrations`;
    const members = kind === "group" ? (await pool.listChannels(project.id)).filter((c) => c.kind !== "group") : undefined;
    const form = kindFormHtml({
      action: editing === null ? `${base}/add/${kind}` : `${base}/${editing.id}/edit`,
      csrf: access.viewer.csrf,
      kind,
      fields: fieldsOf(kind),
      editing: editing !== null,
      members,
      submit: "Save integration",
      ...state,
    });
    return htmlResponse(kindPage(access.viewer, { project, kind, form, editing }), status);
  };

  /** A failure of the admin API's checks, next to the field it names. */
  const errorsOf = (kind: ChannelKind, failure: Failure | string): Errors => {
    const text = typeof failure === "string" ? failure : reasonOf(failure);
    const field =
      typeof failure === "string" ? (/^value\.(\w+)/.exec(failure)?.[1] ?? "") : failure.code === "invalid" ? failure.field : "";
    const fields = fieldsOf(kind);
    const named = field.startsWith("value.")
      ? field.slice("value.".length)
      : field === "value"
        ? (fields[0]?.name ?? "")
        : field === "name"
          ? "name"
          : "";
    const plain = text
      .replace(/^json validation error: /, "")
      .replace(/^value\.\w+:? /, "")
      .replace(/^value /, "");
    return named !== "" && (named === "name" || fields.some((f) => f.name === named)) ? { [named]: plain } : { "": plain };
  };

  route("GET", "/projects/:project/integrations/add", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    manager(access);
    const mine = CHANNEL_KINDS.filter((kind) => mayAdd(access, kind));
    const offered = mine.filter((kind) => unavailable(kind) === null);
    const off = mine.flatMap((kind) => {
      const why = unavailable(kind);
      return why === null ? [] : [[kind, why] as const];
    });
    return htmlResponse(addIntegrationPage(access.viewer, { project, kinds: offered, unavailable: off }));
  });

  route("GET", "/projects/:project/integrations/add/:kind", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    manager(access);
    const kind = kindOf(event);
    if (isServiceKind(kind)) permitKind(access, kind, serviceKinds.operatorOnly(kind));
    const why = unavailable(kind);
    if (why !== null) throw httpError(404, `this server does not send ${kind} notifications: ${why}`);
    return formPage(access, project, kind, null, { values: {}, name: "", newChecks: true, everyFailure: false, errors: {} });
  });

  /** Checks and saves a posted form (adding when `editing` is null); the form again with its errors, or a redirect. */
  const save = async (event: H3Event, access: Access, project: Project, kind: ChannelKind, editing: Channel | null) => {
    const form = await writeForm(event, access);
    const name = form.get("name") ?? "";
    const newChecks = form.get("new_checks") !== null;
    const everyFailure = form.get("every_failure") !== null;
    const fields = fieldsOf(kind);
    let values = valueOfFields(form, fields);
    const again = (errors: Errors) => formPage(access, project, kind, editing, { values, name, newChecks, everyFailure, errors }, 400);
    if (editing !== null) {
      // a secret left empty keeps the stored one, unless the destination changed
      const value = editing.value;
      const stored = "fields" in value ? value.fields : isServiceKind(kind) ? {} : OWN_FORMS[kind].storedOf(value);
      const kept = keptSecrets(values, fields, stored);
      if ("problem" in kept) return again({ [kept.field]: kept.problem });
      values = kept.value;
    }
    const value = isServiceKind(kind) ? values : OWN_FORMS[kind].valueOf(values);
    const input = channelInputOf({ kind, name, value, new_checks: newChecks, every_failure: everyFailure }, serviceKinds);
    if (!input.ok) return again(errorsOf(kind, input.failure));
    const prepared = await preparedInput(input.value, serviceKinds);
    if (!prepared.ok) return again(errorsOf(kind, prepared.failure));
    const channels = await pool.listChannels(project.id);
    const loop = groupProblem(
      prepared.value,
      channels.filter((c) => c.id !== editing?.id),
    );
    if (loop !== null) return again(errorsOf(kind, loop));
    const at = clock.now();
    const saved =
      editing === null
        ? await pool.addChannel(project.id, prepared.value, at)
        : await pool.updateChannel(project.id, editing.id, prepared.value, at);
    if (!saved.ok) return again(errorsOf(kind, saved.failure));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: editing === null ? "channel.added" : "channel.updated",
      target: auditTarget.channel(saved.value),
      at,
    });
    return redirect(`/projects/${project.id}/integrations?${editing === null ? `added=${saved.value.id}` : "done=saved"}`);
  };

  route("POST", "/projects/:project/integrations/add/:kind", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const kind = kindOf(event);
    manager(access);
    if (isServiceKind(kind)) permitKind(access, kind, serviceKinds.operatorOnly(kind));
    return save(event, access, project, kind, null);
  });

  const editable = async (access: Access, project: Project, channelId: string): Promise<Channel> => {
    manager(access);
    const channel = (await pool.listChannels(project.id)).find((c) => c.id === channelId);
    if (channel === undefined) throw httpError(404, "integration not found");
    permitKind(access, channel.kind, opts.operatorOnly(channel));
    return channel;
  };

  route("GET", "/projects/:project/integrations/:channel/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: changes are not allowed`);
    const channel = await editable(access, project, param(event, "channel"));
    const value = channel.value;
    const values = "fields" in value ? { ...value.fields } : isServiceKind(channel.kind) ? {} : OWN_FORMS[channel.kind].storedOf(value);
    return formPage(access, project, channel.kind, channel, {
      values,
      name: channel.name,
      newChecks: channel.newChecks !== false,
      everyFailure: channel.everyFailure === true,
      errors: {},
    });
  });

  route("POST", "/projects/:project/integrations/:channel/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const channel = await editable(access, project, param(event, "channel"));
    return save(event, access, project, channel.kind, channel);
  });
}
