// The integrations page: each integration with its kind, assigned checks and delivery state (the last
// delivery's status, time and error); "Add an integration" (the kinds offered, then a kind's own page with
// what to paste where and its form), the page that edits one, and the check page's toggles.
import type { Channel, ChannelKind, Check, Millis, Project, ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import { timeHtml } from "./time-html.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import type { ServiceKinds } from "../deps.ts";
import { KIND_PAGES } from "./kind-catalog.ts";
import { documentOf, projectNav } from "./page-frame.ts";

/** One integration with what the admin API reports of its deliveries, and its last delivery. */
export type IntegrationRow = {
  readonly channel: Channel;
  readonly pending: number;
  readonly failed: number;
  readonly lastError: string | null;
  readonly checks: readonly Check[];
  readonly last: LastDelivery | null;
};

/** The newest delivery attempt of an integration: sent, or failed (to be retried, or given up) with its error. */
export type LastDelivery = {
  readonly at: Millis;
  readonly status: "sent" | "failed" | "given up";
  readonly error: string | null;
  readonly check: string;
};

/** Where an integration sends, secrets masked: a URL's origin only (its path may hold a token), a kind's secret fields as ****. */
function targetOf(channel: Channel, kinds: Pick<ServiceKinds, "form">): string {
  const origin = (url: string) => {
    try {
      return `${new URL(url).origin}/…`;
    } catch {
      return "…";
    }
  };
  if (channel.needsSettings === true) return "needs its settings (imported without them): Edit to give them; nothing is sent until then";
  const value = channel.value;
  switch (value.kind) {
    case "email":
      return value.address;
    case "webhook":
      return origin(value.spec.url_down !== "" ? value.spec.url_down : value.spec.url_up);
    case "slack":
    case "discord":
      return origin(value.url);
    case "ntfy":
      return origin(value.spec.url);
    default:
      return "fields" in value
        ? kinds
            .form(value.kind)
            .flatMap((field) => {
              const shown = value.fields[field.name];
              if (shown === undefined || shown === null || shown === "") return [];
              return [`${field.name}: ${field.input === "secret" ? "****" : String(shown)}`];
            })
            .join(", ")
        : "";
  }
}

export function isServiceKind(kind: ChannelKind): kind is ServiceKind {
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
  const shown = checks
    .slice(0, NAMES_SHOWN)
    .map((c) => html`<li><a href="/checks/${c.uuid}">${c.name === "" ? "(unnamed)" : c.name}</a></li>`);
  const more = checks.length - NAMES_SHOWN;
  // a few names are shown at once; more wait behind the count
  return html`<details class="assigned"${checks.length <= NAMES_SHOWN ? html` open` : ""}><summary>${count}</summary><ul>${shown}${more > 0 ? html`<li>and ${more} more</li>` : ""}</ul></details>`;
}

/** The deliveries cell: pending and failed counts, and the last delivery's status, time and error. */
function deliveriesCell(row: IntegrationRow): Html {
  const last = row.last;
  const lastLine =
    last === null
      ? html`<br><span class="hint">nothing sent yet</span>`
      : html`<br>last: <b>${last.status}</b> ${timeHtml(last.at)} (${last.check})${last.error === null ? "" : html`<br><span class="error">${last.error}</span>`}`;
  return html`${row.pending} pending, ${row.failed} failed${lastLine}`;
}

export function integrationsPage(
  viewer: Viewer,
  opts: {
    project: Project;
    rows: readonly IntegrationRow[];
    canAdd: boolean;
    canRemove?: boolean;
    canEdit: (channel: Channel) => boolean;
    /** The outcome of a "Test", shown above the list. */
    tested?: { readonly channel: Channel; readonly error: string | null };
    /** An integration just added: a notice with its "Send test notification" button. */
    added?: Channel;
    /** A line saying what the last action did ("Integration removed."); none on a plain visit. */
    notice?: string | null;
    serviceKinds: Pick<ServiceKinds, "form">;
  },
): string {
  const base = `/projects/${opts.project.id}/integrations`;
  const testButton = (
    channel: Channel,
    label: string,
  ) => html`<form method="post" action="${base}/${channel.id}/test" class="inline"><input type="hidden" name="csrf" value="${viewer.csrf}">
<button type="submit" aria-label="${label} ${channel.name}">${label === "Test" ? "Test" : "Send test notification"}</button></form>`;
  const rows = opts.rows.map(
    (
      row,
    ) => html`<tr><td>${row.channel.name === "" ? "(unnamed)" : row.channel.name}</td><td>${KIND_PAGES[row.channel.kind].title}</td><td class="target">${targetOf(row.channel, opts.serviceKinds)}</td>
<td>${assignedChecksCell(row.checks)}${row.channel.newChecks === false ? "" : html`<br><span class="hint">added to new checks</span>`}${row.channel.everyFailure === true ? html`<br><span class="hint">notified on every failure</span>` : ""}</td>
<td>${deliveriesCell(row)}</td>
<td>${
      viewer.readonly
        ? ""
        : html`${testButton(row.channel, "Test")}
${opts.canEdit(row.channel) ? html`<a class="button" href="${base}/${row.channel.id}/edit" aria-label="Edit ${row.channel.name}">Edit</a> ` : ""}${opts.canRemove === false ? "" : html`<a class="button danger" href="${base}/${row.channel.id}/remove" aria-label="Remove ${row.channel.name}">Remove</a>`}`
    }</td></tr>`,
  );
  const tested = opts.tested;
  return documentOf({
    title: `Integrations · ${opts.project.name}`,
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`${opts.notice == null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}<h1>Integrations</h1>
${opts.added === undefined ? "" : html`<div class="notice" role="status"><p>Integration “${opts.added.name === "" ? "(unnamed)" : opts.added.name}” added. Check that it works:</p>${testButton(opts.added, "Send test notification")}</div>`}
${
  tested === undefined
    ? ""
    : tested.error === null
      ? html`<p class="notice" role="status">Test notification sent through ${tested.channel.name}: accepted.</p>`
      : html`<p class="error" role="alert">Test notification through ${tested.channel.name} failed: ${tested.error}</p>`
}
${opts.canAdd ? html`<p><a class="button" href="${base}/add">Add an integration</a></p>` : ""}
<div id="live-integrations" data-live>${
      opts.rows.length === 0
        ? html`<p>No integrations yet.</p>`
        : html`<table class="list"><thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Target</th><th scope="col">Assigned checks</th><th scope="col">Deliveries</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`
    }</div>
<p class="hint">Assign integrations to a check on the check's page.</p>`,
  });
}

/** "Add an integration": the kinds this server can send and this session may add, each a link to its form. */
export function addIntegrationPage(
  viewer: Viewer,
  opts: { project: Project; kinds: readonly ChannelKind[]; unavailable: readonly (readonly [ChannelKind, string])[] },
): string {
  const base = `/projects/${opts.project.id}/integrations`;
  return documentOf({
    title: "Add an integration",
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>Add an integration</h1>
<ul class="kinds">${opts.kinds.map((kind) => html`<li><a href="${base}/add/${kind}">${KIND_PAGES[kind].title}</a> <span class="hint">${KIND_PAGES[kind].intro.split(". ")[0]}.</span></li>`)}</ul>
${opts.unavailable.length === 0 ? "" : html`<details><summary>Not offered on this server (${opts.unavailable.length})</summary><ul class="hint">${opts.unavailable.map(([kind, why]) => html`<li>${KIND_PAGES[kind].title}: ${why}</li>`)}</ul></details>`}
<p><a class="button" href="${base}">Cancel</a></p>`,
  });
}

/** A kind's page: what to paste where, and its form (to add one, or to edit one: its stored non-secret values shown). */
export function kindPage(viewer: Viewer, opts: { project: Project; kind: ChannelKind; form: Html; editing: Channel | null }): string {
  const page = KIND_PAGES[opts.kind];
  const title =
    opts.editing === null
      ? `Add ${page.title}`
      : `Edit the ${page.title} integration “${opts.editing.name === "" ? "(unnamed)" : opts.editing.name}”`;
  return documentOf({
    title,
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>${title}</h1>
<p class="intro">${page.intro}</p>
${opts.form}
<p><a class="button" href="/projects/${opts.project.id}/integrations${opts.editing === null ? "/add" : ""}">Cancel</a></p>`,
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
export function checkIntegrations(
  viewer: Viewer,
  opts: { check: Check; ref: string; channels: readonly Channel[] },
): ReturnType<typeof html> {
  if (opts.channels.length === 0) return html`<p>No integrations in this project.</p>`;
  return html`<ul class="integrations">${opts.channels.map((channel) => {
    const on = opts.check.channels.includes(channel.id);
    return html`<li><span class="${on ? "on" : "off"}">${on ? "ON" : "OFF"}</span> ${channel.kind}: ${channel.name === "" ? "(unnamed)" : channel.name}
${
  viewer.readonly
    ? ""
    : html`<form method="post" action="/checks/${opts.ref}/integrations" class="inline"><input type="hidden" name="csrf" value="${viewer.csrf}">
<input type="hidden" name="channel" value="${channel.id}"><input type="hidden" name="on" value="${on ? "0" : "1"}">
<button type="submit" aria-label="${on ? "Turn off" : "Turn on"} ${channel.name}">${on ? "Turn off" : "Turn on"}</button></form>`
}</li>`;
  })}</ul>`;
}
