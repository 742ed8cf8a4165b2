// A project's audit log on the dashboard (CONTRACT "Users, roles and sign-in", last bullet): its recorded
// changes newest first, a page at a time, each with its time, actor, action and target (user text escaped).
import type { Millis, Project } from "../../engine/model.ts";
import { exactText } from "./format.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { documentOf, projectNav } from "./page-frame.ts";

/** One row as the page shows it. */
export type AuditRow = { readonly at: Millis; readonly actor: string; readonly action: string; readonly target: string };

/** The page: a table of the events, and an "Older" link to the next page when there is one. */
export function auditPage(
  viewer: Viewer,
  opts: { project: Project; rows: readonly AuditRow[]; next: number | null; first: boolean },
): string {
  const { project, rows, next } = opts;
  const row = (event: AuditRow) =>
    html`<tr><td><time datetime="${new Date(event.at).toISOString()}">${exactText(event.at)}</time></td><td>${event.actor}</td><td><code>${event.action}</code></td><td>${event.target}</td></tr>`;
  const base = `/projects/${project.id}/audit`;
  return documentOf({
    title: `Audit log · ${project.name}`,
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Audit log</h1>
<p>Every change to this project made through the dashboard, the admin API or the Management API, newest first. Pings are not changes and are not listed.</p>
${
  rows.length === 0
    ? html`<p class="none">No changes recorded.</p>`
    : html`<table class="list audit-log"><thead><tr><th scope="col">Time</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Object</th></tr></thead>
<tbody>${rows.map(row)}</tbody></table>`
}
<p class="controls">${opts.first ? "" : html`<a class="button" href="${base}">Newest</a> `}${next === null ? "" : html`<a class="button" href="${base}?before=${next}">Older</a>`}</p>`,
  });
}
