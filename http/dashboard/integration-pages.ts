// The integrations page: each integration with its kind, assigned checks and delivery state, and (admin)
// the form that adds one (any kind, the value as the admin API takes it) and the page that edits one.
import type { Channel, ChannelKind, Check, Project, ServiceFields, ServiceKind } from "../../engine/model.ts";
import { CHANNEL_KINDS, SERVICE_KINDS } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./pages.ts";
import type { ServiceKinds } from "../deps.ts";
import { kindEditForm, kindForms } from "./kind-forms.ts";
import { documentOf, projectNav } from "./pages.ts";

/** One integration with what the admin API reports of its deliveries. */
export type IntegrationRow = {
  readonly channel: Channel;
  readonly pending: number;
  readonly failed: number;
  readonly lastError: string | null;
  readonly checks: readonly Check[];
};

/** What each of the first five kinds' value field expects (the admin API's values, see docs/notifications.md). */
const VALUE_HINTS: Record<Exclude<ChannelKind, ServiceKind>, string> = {
  email: "an address: oncall@example.com",
  webhook: 'a URL (POSTs the check as JSON), or a JSON object: {"url_down": "https://...", "method_down": "POST", "body_down": "$NAME is $STATUS"}',
  slack: "the incoming-webhook URL",
  discord: "the webhook URL",
  ntfy: 'a topic URL (https://ntfy.sh/my-alerts), or {"url": "https://ntfy.example.com", "topic": "ops", "priority_down": 5}',
};

/** Where an integration sends, secrets masked: a URL's origin only (its path may hold a token), a kind's secret fields as ****. */
function targetOf(channel: Channel, kinds: Pick<ServiceKinds, "form">): string {
  const origin = (url: string) => { try { return `${new URL(url).origin}/…`; } catch { return "…"; } };
  if (channel.needsSettings === true) return "needs its settings (imported without them): Edit to give them; nothing is sent until then";
  const value = channel.value;
  switch (value.kind) {
    case "email": return value.address;
    case "webhook": return origin(value.spec.url_down !== "" ? value.spec.url_down : value.spec.url_up);
    case "slack": case "discord": return origin(value.url);
    case "ntfy": return origin(value.spec.url);
    default: return "fields" in value ? kinds.form(value.kind).flatMap((field) => {
      const shown = value.fields[field.name];
      if (shown === undefined || shown === null || shown === "") return [];
      return [`${field.name}: ${field.input === "secret" ? "****" : String(shown)}`];
    }).join(", ") : "";
  }
}

function isServiceKind(kind: ChannelKind): kind is ServiceKind {
  return SERVICE_KINDS.some((k) => k === kind);
}

/** Names shown in an integration's "Assigned checks" cell before "and N more". */
const NAMES_SHOWN = 5;

/**
 * "N checks" with the first NAMES_SHOWN of them behind a disclosure (open when they are all): an
 * integration assigned to 10,000 checks would otherwise list every name and squeeze the other columns to
 * a letter a line.
 */
function assignedChecksCell(checks: readonly Check[]): Html {
  if (checks.length === 0) return html`none`;
  const count = `${checks.length} check${checks.length === 1 ? "" : "s"}`;
  const shown = checks.slice(0, NAMES_SHOWN).map((c) => html`<li><a href="/checks/${c.uuid}">${c.name === "" ? "(unnamed)" : c.name}</a></li>`);
  const more = checks.length - NAMES_SHOWN;
  // a few names are shown at once; more wait behind the count
  return html`<details class="assigned"${checks.length <= NAMES_SHOWN ? html` open` : ""}><summary>${count}</summary><ul>${shown}${more > 0 ? html`<li>and ${more} more</li>` : ""}</ul></details>`;
}

export function integrationsPage(viewer: Viewer, opts: {
  project: Project; rows: readonly IntegrationRow[]; canAdd: boolean; canRemove?: boolean; error: string | null; values: { kind: string; name: string; value: string };
  /** The kinds of notify/kinds/: what each value holds, and each kind's form. */
  serviceKinds: Pick<ServiceKinds, "help" | "form">;
  /** The outcome of a "Test", shown above the list. */
  tested?: { readonly channel: Channel; readonly error: string | null };
  /** A line saying what the last action did ("Integration removed."); none on a plain visit. */
  notice?: string | null;
}): string {
  const base = `/projects/${opts.project.id}/integrations`;
  const rows = opts.rows.map((row) => html`<tr><td>${row.channel.name === "" ? "(unnamed)" : row.channel.name}</td><td>${row.channel.kind}</td><td class="target">${targetOf(row.channel, opts.serviceKinds)}</td>
<td>${assignedChecksCell(row.checks)}</td>
<td>${row.pending} pending, ${row.failed} failed${row.lastError === null ? "" : html`<br><span class="error">last error: ${row.lastError}</span>`}</td>
<td>${viewer.readonly ? "" : html`<form method="post" action="${base}/${row.channel.id}/test" class="inline"><input type="hidden" name="csrf" value="${viewer.csrf}">
<button type="submit" aria-label="Test ${row.channel.name}">Test</button></form>
${opts.canAdd ? html`<a class="button" href="${base}/${row.channel.id}/edit" aria-label="Edit ${row.channel.name}">Edit</a> ` : ""}${opts.canRemove === false ? "" : html`<a class="button danger" href="${base}/${row.channel.id}/remove" aria-label="Remove ${row.channel.name}">Remove</a>`}`}</td></tr>`);
  const tested = opts.tested;
  const v = opts.values;
  return documentOf({
    title: `Integrations · ${opts.project.name}`,
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`${opts.notice == null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}<h1>Integrations</h1>
${tested === undefined ? "" : tested.error === null
    ? html`<p class="notice" role="status">Test notification sent through ${tested.channel.name}: accepted.</p>`
    : html`<p class="error" role="alert">Test notification through ${tested.channel.name} failed: ${tested.error}</p>`}
<div id="live-integrations" data-live>${opts.rows.length === 0 ? html`<p>No integrations yet.</p>` : html`<table class="list"><thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Target</th><th scope="col">Assigned checks</th><th scope="col">Deliveries</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`}</div>
<p class="hint">Assign integrations to a check on the check's page.</p>
${!opts.canAdd ? "" : html`<h2>Add an integration</h2>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
<form method="post" action="${base}" class="check-form"><input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="i-kind">Kind</label><select id="i-kind" name="kind">${CHANNEL_KINDS.map((k) => html`<option value="${k}"${k === v.kind ? html` selected` : ""}>${k}</option>`)}</select>
<label for="i-name">Name</label><input id="i-name" name="name" value="${v.name}" maxlength="100">
<label for="i-value">Value</label><textarea id="i-value" name="value" rows="3" required>${v.value}</textarea>
<ul class="hint">${CHANNEL_KINDS.map((k) => html`<li><b>${k}</b>: ${isServiceKind(k) ? opts.serviceKinds.help(k) : VALUE_HINTS[k]}</li>`)}</ul>
<button type="submit">Add integration</button></form>
<h2>Or add one with its own form</h2>
${kindForms(base, viewer.csrf, opts.serviceKinds)}`}`,
  });
}

/**
 * "Edit": the kind's own form holding the integration's fields (a kind of notify/kinds/), or the value as
 * the admin API takes it (the first five kinds); a secret (a token, a key, a webhook URL) is never shown
 * back, and left empty it stays as stored.
 */
export function editIntegrationPage(viewer: Viewer, opts: {
  project: Project; channel: Channel; serviceKinds: Pick<ServiceKinds, "help" | "form">; error: string | null;
  /** What the form posted, shown back after a refusal; absent: the stored name and value. */
  posted?: { readonly name: string; readonly fields?: ServiceFields; readonly value?: string };
}): string {
  const action = `/projects/${opts.project.id}/integrations/${opts.channel.id}/edit`;
  const { channel } = opts;
  const name = opts.posted?.name ?? channel.name;
  const stored = channel.value;
  const form = "fields" in stored && isServiceKind(channel.kind)
    ? kindEditForm(action, viewer.csrf, opts.serviceKinds, channel.kind, name, opts.posted?.fields ?? stored.fields)
    : html`<p class="hint">${isServiceKind(channel.kind) ? "" : VALUE_HINTS[channel.kind]}</p>
<form method="post" action="${action}" class="check-form"><input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="i-name">Name</label><input id="i-name" name="name" value="${name}" maxlength="100">
<label for="i-value">Value</label><textarea id="i-value" name="value" rows="3">${opts.posted?.value ?? (stored.kind === "email" ? stored.address : "")}</textarea>
${stored.kind === "email" ? "" : html`<span class="hint">leave empty to keep (the stored value may hold a secret: it is not shown)</span>`}
<button type="submit">Save</button></form>`;
  return documentOf({
    title: "Edit integration",
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>Edit the ${channel.kind} integration “${channel.name === "" ? "(unnamed)" : channel.name}”</h1>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
${form}
<p><a class="button" href="/projects/${opts.project.id}/integrations">Cancel</a></p>`,
  });
}

/** "Remove" asks first: what goes (the integration, its assignments, its waiting notifications), then a POST does it. */
export function removeIntegrationPage(viewer: Viewer, opts: { project: Project; channel: Channel; checks: readonly Check[] }): string {
  const base = `/projects/${opts.project.id}/integrations`;
  const name = opts.channel.name === "" ? "(unnamed)" : opts.channel.name;
  return documentOf({
    title: "Remove integration",
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>Remove the ${opts.channel.kind} integration “${name}”?</h1>
<p>${opts.checks.length === 0 ? "No check uses it." : `${opts.checks.length} check${opts.checks.length === 1 ? "" : "s"} will stop notifying it.`}
Its notifications still waiting to be sent are dropped; this cannot be undone.</p>
<div class="controls"><form method="post" action="${base}/${opts.channel.id}/remove" class="inline"><input type="hidden" name="csrf" value="${viewer.csrf}">
<button type="submit" class="danger">Remove for good</button></form> <a class="button" href="${base}">Cancel</a></div>`,
  });
}

/** The check page's integrations: each with its on/off state and a toggle for writers. */
export function checkIntegrations(viewer: Viewer, opts: { check: Check; ref: string; channels: readonly Channel[] }): ReturnType<typeof html> {
  if (opts.channels.length === 0) return html`<p>No integrations in this project.</p>`;
  return html`<ul class="integrations">${opts.channels.map((channel) => {
    const on = opts.check.channels.includes(channel.id);
    return html`<li><span class="${on ? "on" : "off"}">${on ? "ON" : "OFF"}</span> ${channel.kind}: ${channel.name === "" ? "(unnamed)" : channel.name}
${viewer.readonly ? "" : html`<form method="post" action="/checks/${opts.ref}/integrations" class="inline"><input type="hidden" name="csrf" value="${viewer.csrf}">
<input type="hidden" name="channel" value="${channel.id}"><input type="hidden" name="on" value="${on ? "0" : "1"}">
<button type="submit" aria-label="${on ? "Turn off" : "Turn on"} ${channel.name}">${on ? "Turn off" : "Turn on"}</button></form>`}</li>`;
  })}</ul>`;
}
