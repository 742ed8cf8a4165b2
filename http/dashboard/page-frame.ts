// The frame every dashboard page shares: who is looking (Viewer), the whole document with its header, the
// project's navigation and the CSRF field of every form.
import type { Project } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

/** Who a read-only refusal names: a user's role ("your role (readonly)"), or the read-only key a session signed in with. */
export function readonlyWho(viewer: Viewer): string {
  return viewer.user !== undefined ? `your role (${viewer.user.role ?? "readonly"})` : "read-only key";
}

/** Who is looking: what to render for them. */
export type Viewer = {
  readonly csrf: string;
  readonly readonly: boolean;
  readonly admin: boolean;
  /**
   * A user signed in by email: shown in the header with their role; what engine/roles.ts keeps from their
   * role: `hideKeys` the API keys, `hidePingUrls` the check uuids and the ping key, `hideAudit` the audit log.
   */
  readonly user?: { readonly email: string; readonly role: string | null };
  readonly hideKeys?: boolean;
  readonly hidePingUrls?: boolean;
  readonly hideAudit?: boolean;
};

/** True when the viewer reads the audit log: users as engine/roles.ts's audit.view says, the admin token, a read-write key (not a read-only key). */
export function seesAudit(viewer: Viewer): boolean {
  return viewer.user !== undefined ? viewer.hideAudit !== true : viewer.admin || !viewer.readonly;
}

/** A complete page: header with navigation and "Sign out", the body, the stylesheet and script served by hcd. */
export function documentOf(opts: { title: string; viewer: Viewer | null; body: Html; nav?: Html; down?: number }): string {
  const { title, viewer } = opts;
  const shown = opts.down ? `(${opts.down} down) ${title} · hcd` : `${title} · hcd`;
  return (
    "<!doctype html>\n" +
    html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shown}</title>
<link rel="stylesheet" href="/static/dashboard.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<script src="/static/dashboard.js" defer></script>
</head><body data-title="${title} · hcd">
<a class="skip-link" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/">hcd</a>${opts.nav ?? ""}
${
  viewer === null
    ? ""
    : html`<span class="who">${viewer.admin && (viewer.user === undefined || viewer.user.role === "instance admin") ? html`<a href="/users">Users</a> ` : ""}${viewer.user !== undefined ? html`${viewer.user.email}${viewer.user.role === null ? "" : ` (${viewer.user.role})`} <a href="/account">Account</a>` : viewer.admin ? "admin" : viewer.readonly ? "read-only key" : "project key"}</span>
<form method="post" action="/signout" class="inline">${csrfField(viewer)}<button type="submit">Sign out</button></form>`
}
</header>
<main id="main" tabindex="-1">${opts.body}</main>
</body></html>`.text
  );
}

export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="csrf" value="${viewer.csrf}">`;
}

/** A form posting to `action` with its CSRF token and one submit button. */
export function button(viewer: Viewer, action: string, label: string, cls = ""): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(viewer)}<button type="submit" class="${cls}">${label}</button></form>`;
}

/** The project's navigation: its checks, integrations (not for read-only keys), status pages, settings, members and audit log. */
export function projectNav(project: Project, viewer: Viewer): Html {
  const base = `/projects/${project.id}`;
  // read-only keys don't see integrations (as GET /api/v3/channels/ refuses them)
  return html`<nav aria-label="Project"><a href="${base}/checks">${project.name}</a>${viewer.readonly ? "" : html` <a href="${base}/integrations">Integrations</a>`} <a href="${base}/status-pages">Status pages</a> <a href="${base}/settings">Settings</a>${viewer.user !== undefined || viewer.admin ? html` <a href="${base}/members">Members</a>` : ""}${seesAudit(viewer) ? html` <a href="${base}/audit">Audit log</a>` : ""}</nav>`;
}
