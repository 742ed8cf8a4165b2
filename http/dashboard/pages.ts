// The dashboard's pages as typed template functions: data in, a complete HTML document out (the checks
// list is checks-list.ts). Every value is interpolated through `html`, which escapes it.
import type { Check, Downtime, Flip, Millis, PingRecord, Project } from "../../engine/model.ts";
import { unknownWithin } from "../status/uptime.ts";
import type { OutboxEntry, SentNotice } from "../../engine/changes.ts";
import { downAt, statusAt } from "../../engine/status.ts";
import { agoText, durationText } from "./format.ts";
import { LIMITS } from "../../engine/model.ts";
import type { Html, Value } from "./html.ts";
import { html, raw } from "./html.ts";
import { timeHtml } from "./time-html.ts";
import { eventsSection } from "./check-history.ts";
import { checkBadgeHtml, usageExamplesHtml } from "./usage-examples.ts";
import { checkMarksOf, marksHtml, projectMuteLine } from "./check-marks.ts";
import type { Viewer } from "./page-frame.ts";
import { button, csrfField, documentOf, projectNav } from "./page-frame.ts";

/**
 * The check limit the dashboard's "Create a project" offers: 10,000, the reference's own for an instance
 * without payments (Healthchecks gives each account 10,000 checks when USE_PAYMENTS is off, its default):
 * a team's own instance is not a free plan. The admin API keeps the contract's default of 20.
 */
export const DASHBOARD_CHECK_LIMIT = 10_000;

export const STATUS_WORDS = ["down", "grace", "started", "up", "new", "paused"] as const;
export type StatusWord = (typeof STATUS_WORDS)[number];

/** Shapes differ per status, so colour is never the only signal (the word is always next to it). */
// As character references (✖ ! ▶ ✔ ○ ‖): a page of only Latin-1 text stays a one-byte string, which
// encodes to UTF-8 several times faster than a two-byte one (a 1,000-row table is some 360 kB)
const ICONS: Record<StatusWord, Html> = {
  down: raw("&#10006;"),
  grace: raw("!"),
  started: raw("&#9654;"),
  up: raw("&#10004;"),
  new: raw("&#9675;"),
  paused: raw("&#8214;"),
};

/** Returns the status word of a check at `at`: the API's status, or "started" while a run is open. */
export function statusWordOf(check: Check, at: Millis): StatusWord {
  const status = statusAt(check, at);
  if (check.lastStartAt !== null && status !== "down" && status !== "paused") return "started";
  return status;
}

export function statusBadge(word: StatusWord): Html {
  return html`<span class="status status-${word}"><span class="icon" aria-hidden="true">${ICONS[word]}</span> <span class="word">${word}</span></span>`;
}

/** The three limit fields, filled with `values` (the create form's and the Manage page's). */
export function limitFields(
  values: { readonly checkLimit: string; readonly pingLogLimit: string; readonly pingBodyLimit: string },
  prefix: string,
): Html {
  return html`<label for="${prefix}-check-limit">Check limit</label><input id="${prefix}-check-limit" name="check_limit" type="number" min="0" max="1000000" required value="${values.checkLimit}">
<label for="${prefix}-ping-log-limit">Pings kept per check</label><input id="${prefix}-ping-log-limit" name="ping_log_limit" type="number" min="1" max="1000000" required value="${values.pingLogLimit}">
<label for="${prefix}-ping-body-limit">Ping body limit (bytes)</label><input id="${prefix}-ping-body-limit" name="ping_body_limit" type="number" min="0" max="10000000" required value="${values.pingBodyLimit}">`;
}

/** The sign-in page; `reset`: a "Forgot your password?" link (only when SMTP_URL is set). */
export function signInPage(
  error: string | null,
  opts: { reset?: boolean; sso?: boolean; next?: string; firstAdmin?: string } = {},
): string {
  const next = opts.next === undefined || opts.next === "/" ? "" : html`<input type="hidden" name="next" value="${opts.next}">`;
  return documentOf({
    title: "Sign in",
    viewer: null,
    body: html`<section class="card narrow"><h1>Sign in</h1>
${error === null ? "" : html`<p class="error" role="alert">${error}</p>`}
${
  opts.firstAdmin === undefined
    ? ""
    : html`<div class="notice" id="first-admin"><p>No users yet. On the server, make the first instance admin:</p>
<pre><code>echo "$PASSWORD" | npx hcd user create --url ${opts.firstAdmin} --email you@example.org --admin</code></pre>
<p>(the admin token is read from <code>ADMIN_TOKEN</code> or <code>DATA_DIR/admin-token</code>; without a password on standard input it prints an invitation link). Then sign in below with that email and password. Until then the admin token from the server's log opens every project.</p></div>`
}
<form method="post" action="/signin">${next}
<label for="key">Admin token or API key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
<p class="hint">The admin token opens every project; a project's API key opens that project, its read-only key opens it read-only.</p>
</section>
<section class="card narrow"><h2>Sign in with your account</h2>
<form method="post" action="/signin/password">${next}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${opts.reset === true ? html`<p><a href="/reset">Forgot your password?</a></p>` : ""}
${opts.sso === true ? html`<form method="post" action="/signin/oidc">${next}<button type="submit">Sign in with SSO</button></form>` : ""}
</section>`,
  });
}

export function errorPage(viewer: Viewer | null, status: number, message: string): string {
  return documentOf({
    title: `Error ${status}`,
    viewer,
    body: html`<h1>Error ${status}</h1><p role="alert">${message}</p><p><a href="/">Back</a></p>`,
  });
}

export type ProjectSummary = { readonly project: Project; readonly checks: number; readonly down: number };

export function projectsPage(viewer: Viewer, projects: readonly ProjectSummary[], error: string | null): string {
  const rows = projects.map(
    ({ project, checks, down }) => html`<tr>
<td><a href="/projects/${project.id}/checks">${project.name}</a></td><td>${checks}</td>
<td>${down > 0 ? statusBadge("down") : ""} ${down}</td></tr>`,
  );
  const totalDown = projects.reduce((sum, p) => sum + p.down, 0);
  return documentOf({
    title: "Projects",
    viewer,
    down: totalDown,
    body: html`<h1>Projects</h1>
<div id="live-projects" data-live><table class="list"><thead><tr><th scope="col">Project</th><th scope="col">Checks</th><th scope="col">Down</th></tr></thead>
<tbody>${rows}</tbody></table>
${projects.length === 0 ? html`<p>No projects yet.</p>` : ""}</div>
${
  !viewer.admin
    ? ""
    : html`<h2>Create a project</h2>
${error === null ? "" : html`<p class="error" id="e-project-name" role="alert">${error}</p>`}
<form method="post" action="/projects" class="row">${csrfField(viewer)}
<label for="project-name">Name</label><input id="project-name" name="name" required maxlength="100"${error === null ? "" : html` aria-invalid="true" aria-describedby="e-project-name"`}>
${limitFields({ checkLimit: String(DASHBOARD_CHECK_LIMIT), pingLogLimit: String(LIMITS.defaultPingLogLimit), pingBodyLimit: String(LIMITS.defaultPingBodyLimit) }, "new")}
<button type="submit">Create project</button></form>`
}`,
  });
}

export function tagsOf(tags: string): string[] {
  return tags.split(" ").filter((t) => t !== "");
}

/** Every tag of `checks`, each once, sorted (a tags string that many checks share is split once). */
export function tagsOfAll(checks: readonly Check[]): string[] {
  const seen = new Set<string>(),
    tags = new Set<string>();
  for (const check of checks) {
    if (seen.has(check.tags)) continue;
    seen.add(check.tags);
    for (const tag of tagsOf(check.tags)) tags.add(tag);
  }
  return [...tags].sort();
}

export function scheduleText(check: Check): string {
  const grace = `grace ${durationText(check.graceMs)}`;
  if (check.kind === "simple") return `every ${durationText(check.timeoutMs)}, ${grace}`;
  return `${check.schedule} (${check.tz}), ${grace}`;
}

export type CheckPage = {
  readonly project: Project;
  readonly check: Check;
  readonly ref: string;
  readonly at: Millis;
  readonly siteRoot: string;
  readonly flips: readonly Flip[];
  /** Newest first, with their run durations; null for read-only viewers (the API hides them too). */
  readonly pings: readonly { readonly ping: PingRecord; readonly durationMs: Millis | null }[] | null;
  readonly notice: string | null;
  /** The page of events shown (check-history.ts; 1 = the newest). */
  readonly eventsPage: number;
  /** The check's notifications still in the outbox (waiting, failing, given up). */
  readonly notices: readonly OutboxEntry[];
  /** The check's delivered notifications, newest first. */
  readonly sent: readonly SentNotice[];
  /** The check's ping email address; null when inbound SMTP is off. */
  readonly pingEmail: string | null;
  /** The check's integrations section (rendered by integration-pages.ts). */
  readonly integrations: Html;
  /** The name of a check of the project by uuid (the dependency holding this one); undefined = none such. */
  readonly nameOf: (uuid: string) => string | undefined;
  /** The name of an integration of the project by id (escalation steps); undefined = not shown to this viewer. */
  readonly channelNameOf?: (id: string) => string | undefined;
  /** The stretches hcd did not watch the project's checks (unknown time); absent = none. */
  readonly unknown?: readonly Downtime[];
};

/** Returns what follows the status word on a check's page: "since ...", "running for ...". */
export function statusSentence(check: Check, flips: readonly Flip[], at: Millis): Value {
  const word = statusWordOf(check, at);
  const since = flips[0]?.at;
  switch (word) {
    // pings can be logged while it is new: a failure below failure_threshold, pings before a pause and resume
    case "new":
      return check.nPings === 0
        ? "no ping received yet"
        : `waiting for a success ping (${check.nPings === 1 ? "1 ping" : `${check.nPings} pings`} logged; the period starts with the next success)`;
    case "paused":
      return since === undefined ? "" : html`since ${timeHtml(since)}`;
    case "started":
      return `running for ${durationText(at - (check.lastStartAt ?? at))}`;
    case "grace": {
      const down = downAt(check);
      const last = check.lastPingAt === null ? "no ping yet" : `the last ping was ${agoText(check.lastPingAt, at)}`;
      return down === null ? `late: ${last}` : html`late: ${last}; down at ${timeHtml(down)} unless a ping comes first`;
    }
    case "down":
      return since !== undefined && flips[0].to === "down" ? html`since ${timeHtml(since)}` : "";
    case "up":
      return check.lastPingAt === null ? "" : `last ping ${agoText(check.lastPingAt, at)}`;
  }
}

/** True when the viewer sees ping URLs (check uuids, the ping key): not read-only keys, and users as engine/roles.ts's checks.pingUrls says. */
export function seesPingUrls(viewer: Viewer): boolean {
  return viewer.hidePingUrls !== undefined ? !viewer.hidePingUrls : !viewer.readonly;
}

export function checkPage(viewer: Viewer, data: CheckPage): string {
  const { check, project } = data;
  const base = `/checks/${data.ref}`;
  const word = statusWordOf(check, data.at);
  const uuidUrl = `${data.siteRoot}/ping/${check.uuid}`;
  const slugUrl = check.slug === "" ? null : `${data.siteRoot}/ping/${project.pingKey}/${check.slug}`;
  const snippet = (url: string, by: string) => html`<div class="copy"><code>curl -fsS -m 10 --retry 5 -o /dev/null ${url}</code>
<button type="button" data-copy="curl -fsS -m 10 --retry 5 -o /dev/null ${url}" aria-label="Copy the curl command (by ${by})">Copy</button></div>`;
  const controls = viewer.readonly
    ? ""
    : html`<div class="controls">
${word === "paused" ? button(viewer, `${base}/resume`, "Resume") : button(viewer, `${base}/pause`, "Pause")}
${button(viewer, `${base}/ping`, "Ping now")}
${word === "down" && check.alert?.acknowledged === undefined ? button(viewer, `${base}/acknowledge`, "Acknowledge") : ""}
<a class="button" href="${base}/edit">Edit</a>
<a class="button danger" href="${base}/delete">Delete</a></div>`;
  return documentOf({
    title: check.name === "" ? "(unnamed)" : check.name,
    viewer,
    nav: projectNav(project, viewer),
    body: html`${data.notice === null ? "" : html`<p class="notice" role="status">${data.notice}</p>`}
<h1>${check.name === "" ? "(unnamed)" : check.name}</h1>
<div id="live-state" data-live><p class="state">${statusBadge(word)} <span id="status-text">${statusSentence(check, data.flips, data.at)}</span>${marksHtml(checkMarksOf(check, { at: data.at, nameOf: data.nameOf }))}</p>
${projectMuteLine(project, data.at)}
${controls}</div>
<section><h2>How to ping</h2>
${
  !seesPingUrls(viewer)
    ? html`<p>Ping URLs are not shown to ${viewer.user !== undefined ? "your role" : "read-only keys"}.</p>`
    : html`
<p>By uuid: <code class="ping-url">${uuidUrl}</code></p>${snippet(uuidUrl, "uuid")}
${slugUrl === null ? "" : html`<p>By slug: <code class="ping-url">${slugUrl}</code></p>${snippet(slugUrl, "slug")}`}
<p class="hint">Append <code>/start</code>, <code>/fail</code>, <code>/log</code> or <code>/&lt;exit status&gt;</code> to the URL.</p>
${usageExamplesHtml(uuidUrl, data.pingEmail)}`
}
${checkBadgeHtml(check, data.siteRoot, word)}
</section>
<section id="live-details" data-live><h2>Details</h2><dl>
<dt>Schedule</dt><dd>${scheduleText(check)}</dd>
<dt>Slug</dt><dd>${check.slug === "" ? "none" : check.slug}</dd>
<dt>Tags</dt><dd>${tagsOf(check.tags).length === 0 ? "none" : tagsOf(check.tags).map((t) => html`<span class="tag">${t}</span> `)}</dd>
<dt>Description</dt><dd class="desc">${check.desc === "" ? "none" : check.desc}</dd>
<dt>Filtering</dt><dd>${filteringText(check)}</dd>
<dt>Alerting</dt><dd class="alerting">${alertingText(check, data.at)}</dd>
<dt>Escalation</dt><dd class="escalation">${escalationText(check, data.project, data.channelNameOf ?? (() => undefined))}</dd>
<dt>Pings</dt><dd>${check.nPings}</dd>
</dl></section>
${viewer.readonly ? "" : html`<section id="live-integrations" data-live><h2>Integrations</h2>${data.integrations}</section>`}
<section id="live-downtime" data-live><h2>Downtime, last 3 months</h2>${downtimeTable(data.flips, data.at, check.createdAt, data.unknown ?? [])}</section>
<section id="live-events" data-live><h2>Events</h2>${eventsSection({ flips: data.flips, pings: data.pings, notices: data.notices, sent: data.sent, page: data.eventsPage, base, statusBadge })}</section>`,
  });
}

/** Who acknowledged an outage, in words: the API's and older dashboard records name the surface, newer ones the person or key. */
function acknowledgedBy(by: string): string {
  if (by === "api") return "through the API";
  if (by === "dashboard") return "in the dashboard";
  return `by ${by}`;
}

/** The check's alerting fields in words: threshold, reminders, mute, max duration, an acknowledged outage. */
function alertingText(check: Check, at: Millis): Html {
  const threshold = check.failureThreshold ?? 1;
  const reminderMs = check.reminderIntervalMs ?? 0;
  const mutedUntil = check.mutedUntilAt ?? null;
  const parts: Value[] = [
    threshold === 1 ? "down on the first failure" : `down after ${threshold} failures in a row`,
    reminderMs === 0 ? "no reminders" : `a reminder every ${durationText(reminderMs)} while down`,
    mutedUntil !== null && mutedUntil > at ? html`muted until ${timeHtml(mutedUntil)}` : "not muted",
    ...((check.maxDurationMs ?? 0) > 0 ? [`a run is down after ${durationText(check.maxDurationMs ?? 0)}`] : []),
    ...((check.minDurationMs ?? 0) > 0 ? [`a run that succeeds in less than ${durationText(check.minDurationMs ?? 0)} is a failure`] : []),
    ...((check.maxRunsPerPeriod ?? 0) > 0
      ? [`more than ${check.maxRunsPerPeriod === 1 ? "one run" : `${check.maxRunsPerPeriod} runs`} in one period is a failure`]
      : []),
    check.alertOnOverlap === true ? "overlapping runs are a failure" : "overlapping runs are noted",
    ...(check.alert?.acknowledged !== undefined
      ? [html`outage acknowledged ${timeHtml(check.alert.acknowledged.at)} ${acknowledgedBy(check.alert.acknowledged.by)}`]
      : []),
  ];
  return html`${parts.map((part, i) => (i === 0 ? part : html`; ${part}`))}`;
}

/**
 * The check's escalation policy in words ("after 15 minutes down, also pager (email); after 1 hour, also
 * boss (sms); unless acknowledged"), whose it is, and how far the current outage got.
 */
function escalationText(check: Check, project: Project, channelNameOf: (id: string) => string | undefined): Html {
  const policy = check.escalation ?? project.escalation ?? [];
  const whose = check.escalation === undefined ? "the project's policy" : "this check's own policy";
  if (policy.length === 0) return html`none (${whose})`;
  const names = (ids: readonly string[]) => {
    const known = ids.map(channelNameOf).filter((name) => name !== undefined);
    return known.length === ids.length
      ? known.join(", ")
      : `${ids.length === 1 ? "one more integration" : `${ids.length} more integrations`}`;
  };
  const steps = policy.map((step) => `after ${durationText(step.afterMs)} down, also ${names(step.channels)}`).join("; ");
  const alert = check.alert;
  const reached = alert?.escalated ?? 0;
  const state = reached > 0 ? html`; this outage reached step ${reached} of ${policy.length}` : "";
  const next =
    alert?.escalateAt === undefined ? "" : html`; the next step comes ${timeHtml(alert.escalateAt)} unless the outage is acknowledged`;
  return html`${steps}; unless the outage is acknowledged (${whose})${state}${next}`;
}

function filteringText(check: Check): string {
  const parts: string[] = [];
  if (check.methods === "POST") parts.push("only POST requests count");
  if (check.filterHttpBody) parts.push("HTTP bodies are classified by keywords");
  if (check.filterSubject || check.filterBody) parts.push("emails are classified by keywords");
  if (check.startKw || check.successKw || check.failureKw)
    parts.push(`start: "${check.startKw}", success: "${check.successKw}", failure: "${check.failureKw}"`);
  if (check.manualResume) parts.push("stays down until resumed by hand");
  return parts.length === 0 ? "none: every ping counts as its URL says" : parts.join("; ");
}

/**
 * Incidents (flips to down), total downtime and unknown time (hcd not watching: neither up nor down, left
 * out of the downtime) in each of the last 3 calendar months (UTC) the check existed in.
 */
function downtimeTable(flipsNewestFirst: readonly Flip[], at: Millis, createdAt: Millis, unknown: readonly Downtime[]): Html {
  const now = new Date(at);
  const monthEndAt = (back: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 1);
  const months = [0, 1, 2]
    .filter((back) => back === 0 || monthEndAt(back) > createdAt)
    .map((back) => {
      const startAt = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
      const endAt = Math.min(at, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 1));
      const unknownMs = unknownWithin(Math.max(startAt, createdAt), endAt, unknown);
      return { label: new Date(startAt).toISOString().slice(0, 7), startAt, endAt, incidents: 0, downMs: 0, unknownMs };
    });
  const flips = [...flipsNewestFirst].reverse();
  flips.forEach((flip, i) => {
    if (flip.to !== "down") return;
    const until = flips[i + 1]?.at ?? at;
    for (const month of months) {
      if (flip.at >= month.startAt && flip.at < month.endAt) month.incidents++;
      const from = Math.max(flip.at, month.startAt),
        to = Math.min(until, month.endAt);
      if (to > from) month.downMs += to - from - unknownWithin(from, to, unknown);
    }
  });
  const any = months.some((m) => m.unknownMs > 0);
  return html`<table class="list downtime"><thead><tr><th scope="col">Month</th><th scope="col">Incidents</th><th scope="col">Downtime</th><th scope="col">Unknown</th></tr></thead>
<tbody>${months.map((m) => html`<tr><td>${m.label}</td><td>${m.incidents}</td><td>${m.downMs === 0 ? "none" : durationText(m.downMs)}</td><td class="unknown">${m.unknownMs === 0 ? "none" : durationText(m.unknownMs)}</td></tr>`)}</tbody></table>
${any ? html`<p class="hint unknown-note">Unknown: time hcd was not watching this check (not running, or moving its work between servers). Its status then is not known, so that time counts as neither up nor down.</p>` : ""}`;
}

export function deletePage(viewer: Viewer, opts: { project: Project; check: Check; ref: string }): string {
  return documentOf({
    title: "Delete check",
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>Delete “${opts.check.name}”?</h1><p>The check and its whole log are removed; this cannot be undone.</p>
<div class="controls">${button(viewer, `/checks/${opts.ref}/delete`, "Delete for good", "danger")} <a class="button" href="/checks/${opts.ref}">Cancel</a></div>`,
  });
}
