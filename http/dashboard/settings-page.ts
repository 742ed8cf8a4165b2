// A project's settings page: its API keys and ping key as the viewer may see them, the project-wide mute, the
// maintenance windows' and escalation policy's sections, the downtime reports, the badges.
import type { Millis, Project } from "../../engine/model.ts";
import type { ManageOffer } from "./permits.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import { timeHtml } from "./time-html.ts";
import type { Viewer } from "./page-frame.ts";
import { csrfField, documentOf, projectNav } from "./page-frame.ts";
import { seesPingUrls } from "./pages.ts";

/**
 * Why the API keys are not shown, and, to a role that sees the ping key, how a script makes and pings its
 * checks without them (?create=1 on a URL by slug).
 */
function keysHidden(viewer: Viewer): Html {
  if (viewer.user === undefined) return html`<p>API keys are not shown to read-only keys.</p>`;
  if (!seesPingUrls(viewer)) return html`<p>API keys are not shown to your role.</p>`;
  return html`<p>API keys are shown to managers and owners: a read-write key also opens a session that adds and removes integrations.</p>
<p class="hint">A script makes and pings its own checks with the ping key below: <code>/ping/&lt;ping key&gt;/&lt;slug&gt;?create=1</code> creates the check on its first ping.</p>`;
}

/** The settings page of `opts.project`. */
export function settingsPage(
  viewer: Viewer,
  opts: {
    project: Project;
    badges: Record<string, Record<string, string>>;
    at: Millis;
    mute: { error: string | null; until: string } | null;
    /** The recurring maintenance windows' section (maintenance-pages.ts). */
    maintenance: Html;
    /** The project's escalation policy's section (project-escalation.ts). */
    escalation: Html;
    /** A line saying what the last action did ("Maintenance mute saved."); none on a plain visit. */
    notice?: string | null;
    /** What the project's management page offers this viewer (permits.ts manageOffer): the link says so. */
    manage: ManageOffer;
  },
): string {
  const { project } = opts;
  const mutedUntil = project.mutedUntilAt ?? null;
  const muted = mutedUntil !== null && mutedUntil > opts.at;
  const mute = opts.mute ?? { error: null, until: mutedUntil === null ? "" : new Date(mutedUntil).toISOString() };
  const secret = (label: string, value: string) =>
    html`<details><summary>${label}</summary><div class="copy"><code>${value}</code><button type="button" data-copy="${value}" aria-label="Copy the ${label.toLowerCase()}">Copy</button></div></details>`;
  return documentOf({
    title: `Settings · ${project.name}`,
    viewer,
    nav: projectNav(project, viewer),
    body: html`${opts.notice == null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}<h1>Settings</h1>${opts.manage.keys ? html`<p><a href="/projects/${project.id}/manage">${opts.manage.project ? "Rename, create or revoke keys, delete the project" : "Create or revoke keys"}</a></p>` : ""}<h2>API keys</h2>
${viewer.readonly || viewer.hideKeys === true ? keysHidden(viewer) : html`${secret("Read-write API key", project.apiKey)}${secret("Read-only API key", project.apiKeyReadonly)}`}
${seesPingUrls(viewer) ? secret("Ping key", project.pingKey) : ""}
<h2>Maintenance mute</h2>
<p class="project-mute">${muted ? html`Notifications of every check are muted until ${timeHtml(mutedUntil)}; monitoring continues.` : "Notifications are not muted."}</p>
${
  !viewer.admin
    ? ""
    : html`${mute.error === null ? "" : html`<p class="error" role="alert">${mute.error}</p>`}
<form method="post" action="/projects/${project.id}/mute" class="check-form">${csrfField(viewer)}
<label for="f-mute-until">Mute the project's notifications until (ISO 8601 date and time, UTC unless an offset is given; empty = not muted)</label>
<input id="f-mute-until" name="until" value="${mute.until}" placeholder="2026-01-01T00:00:00Z">
<button type="submit">Save mute</button></form>`
}
${opts.maintenance}
${opts.escalation}
<h2>Reports</h2>
<p>The downtime of every check (incidents, time down, time unknown and uptime) as a spreadsheet (CSV, UTC):
<a class="button" href="/projects/${project.id}/downtime.csv?by=month">by month</a>
<a class="button" href="/projects/${project.id}/downtime.csv?by=week">by week</a>
<a class="button" href="/projects/${project.id}/downtime.csv?by=day">by day</a></p>
<p class="hint">The same through the API: <code>GET /api/v3/downtime.csv?by=month&amp;from=2026-01-01&amp;to=2026-04-01</code>. Monthly or weekly email reports: on your account page.</p>
<h2>Badges</h2><table class="list"><thead><tr><th scope="col">Tag</th><th scope="col">Preview</th><th scope="col">URLs</th></tr></thead><tbody>
${Object.entries(opts.badges).map(
  ([
    tag,
    urls,
  ]) => html`<tr><td>${tag === "*" ? "all checks" : tag}</td><td><img src="${new URL(urls.svg3).pathname}" alt="badge of ${tag}"></td>
<td><ul class="urls">${Object.entries(urls).map(([kind, url]) => html`<li>${kind}: <code>${url}</code></li>`)}</ul></td></tr>`,
)}
</tbody></table>`,
  });
}
