// The public status page as HTML: the logo, title, overall line and description, each check's name (under
// its group's heading), status word, 90-day uptime (or since it was made) with a bar per day, and the
// incidents; it loads itself again every minute (a meta refresh). Its style is inline under a CSP hash, its
// one script the dashboard's (times in the viewer's zone); it shows only what the JSON shows and the
// description: no uuid, key, ping URL or body.
import { createHash } from "node:crypto";
import type { Millis } from "../../engine/model.ts";
import { DAY } from "../../engine/model.ts";
import type { Html } from "../dashboard/html.ts";
import { durationText } from "../dashboard/format.ts";
import { html, raw } from "../dashboard/html.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import type { StatusCheck, StatusView } from "./status-view.ts";
import { overallOf, overallText } from "./overall.ts";

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2327;background:#f6f7f7}
main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.6rem;margin:.2rem 0 1rem}
.check{background:#fff;border:1px solid #dcdcde;border-radius:6px;padding:.8rem 1rem;margin:0 0 .8rem}
.head{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}.name{font-weight:600;overflow-wrap:anywhere}
.word{font-weight:600}.up{color:#00703c}.down{color:#b32d2e}.grace{color:#8a6100}.new,.paused{color:#50575e}
.bars{display:flex;gap:1px;height:2rem;margin:.5rem 0 .2rem}.bars span{flex:1;border-radius:1px;background:#c3c4c7}
.bars .full{background:#2e9e5b}.bars .most{background:#9bc53d}.bars .some{background:#e0a526}.bars .low{background:#c9372c}
.bars .before{background:#ececed}.bars .unknown{background:repeating-linear-gradient(45deg,#c3c4c7 0 3px,#f0f0f1 3px 6px)}.unknown-note{color:#50575e;font-size:.85rem}
.legend{display:flex;justify-content:space-between;color:#50575e;font-size:.85rem}.description{white-space:pre-wrap;margin:0 0 1rem}
table{border-collapse:collapse;width:100%;background:#fff}td,th{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #dcdcde}
footer{color:#50575e;font-size:.85rem;margin-top:1.5rem}h2.group{font-size:1.15rem;margin:1.4rem 0 .6rem}
.logo{display:block;max-height:4rem;max-width:16rem;margin:0 0 .5rem}
.overall{font-weight:600;font-size:1.1rem;border-radius:6px;padding:.7rem 1rem;margin:0 0 1rem;color:#fff}
.overall.operational{background:#00703c}.overall.late{background:#8a6100}.overall.partial_outage{background:#c9372c}.overall.major_outage{background:#8c1c1c}`;

const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/**
 * The Content-Security-Policy of a page: its one inline style by hash, hcd's own scripts and, when it has a
 * logo, images from the logo's origin alone (an https origin as the URL parser writes it: no quote,
 * space, comma or semicolon); nothing else from anywhere.
 */
export function statusPageCsp(view: StatusView): string {
  const images = view.logo === null ? "" : `img-src ${new URL(view.logo).origin}; `;
  return `default-src 'none'; script-src 'self'; style-src 'sha256-${STYLE_HASH}'; ${images}base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** How often an open page loads itself again (a wall screen stays current; a meta refresh needs no script). */
const REFRESH_SECONDS = 60;

const dayText = (at: Millis) => new Date(at).toISOString().slice(0, 10);
/**
 * An instant as UTC text in a <time datetime>: the dashboard's script (the one script the page loads, under
 * its CSP's script-src 'self') words it in the viewer's time zone, the UTC text staying on hover; without
 * script the UTC text stays.
 */
const timeText = (at: Millis) =>
  html`<time datetime="${isoSeconds(at)}">${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;

/**
 * A day's bar: its class by how much of the day was up (a day known only as unknown: striped; a day before
 * the check existed: faint), and its date, share and unknown time on hover.
 */
function bar(percent: number | null, unknownMs: Millis, dayAt: Millis, sinceAt: Millis | null): Html {
  if (sinceAt !== null && dayAt + DAY <= sinceAt)
    return html`<span class="before" title="${dayText(dayAt)}: before this check existed"></span>`;
  const cls =
    percent === null
      ? unknownMs > 0
        ? "unknown"
        : "none"
      : percent >= 100
        ? "full"
        : percent >= 99
          ? "most"
          : percent >= 90
            ? "some"
            : "low";
  const share = percent === null ? (unknownMs > 0 ? "unknown" : "no data") : `${percent}% up`;
  return html`<span class="${cls}" title="${dayText(dayAt)}: ${share}${percent !== null && unknownMs > 0 ? `, ${durationText(unknownMs)} unknown` : ""}"></span>`;
}

function checkBlock(check: StatusCheck, firstDayAt: Millis): Html {
  return html`<section class="check"><div class="head"><span class="name">${check.name}</span>
<span><span class="word ${check.status}">${check.status}</span> · <span class="uptime">${check.uptimePercent}%</span> uptime ${check.sinceAt === null ? "over 90 days" : html`since ${timeText(check.sinceAt)}`}</span></div>
<div class="bars" role="img" aria-label="Uptime per day over the last 90 days">${check.days.map((percent, i) => bar(percent, check.unknownDays[i], firstDayAt + i * DAY, check.sinceAt))}</div>
<div class="legend"><span>90 days ago</span><span>today</span></div>
${check.unknownMs === 0 ? "" : html`<p class="unknown-note">Unknown for ${durationText(check.unknownMs)}: the monitor was not watching then, so that time counts as neither up nor down.</p>`}</section>`;
}

/** The line at the top: every check fine, or how many are late or down; its colour by state (a class, under the style's hash). */
function overallLine(view: StatusView): Html {
  const overall = overallOf(view.checks.map((c) => c.status));
  return html`<p class="overall ${overall.state}" role="status">${overallText(overall)}</p>`;
}

export function statusPageHtml(view: StatusView): string {
  const incidents =
    view.incidents.length === 0
      ? html`<p>No incidents in the last 90 days.</p>`
      : html`<table><thead><tr><th scope="col">Check</th><th scope="col">Down from</th><th scope="col">Up again</th></tr></thead><tbody>
${view.incidents.map((i) => html`<tr><td>${i.check}</td><td>${timeText(i.startedAt)}</td><td>${i.endedAt === null ? "ongoing" : timeText(i.endedAt)}</td></tr>`)}</tbody></table>`;
  return (
    "<!doctype html>\n" +
    html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<title>${view.title}</title><style>${raw(STYLE)}</style><script src="/static/dashboard.js" defer></script></head>
<body><main>${view.logo === null ? "" : html`<img class="logo" src="${view.logo}" alt="" referrerpolicy="no-referrer">`}<h1>${view.title}</h1>
${overallLine(view)}
${view.description === "" ? "" : html`<p class="description">${view.description}</p>`}
${view.checks.map((check, i) => html`${check.group !== null && check.group !== view.checks[i - 1]?.group ? html`<h2 class="group">${check.group}</h2>` : ""}${checkBlock(check, view.firstDayAt)}`)}
<h2>Incidents</h2>${incidents}
${
  view.unknown.length === 0
    ? ""
    : html`<h2>Unknown time</h2><p>The monitor itself was not watching in these stretches (not running, or moving its work between servers): the checks' status then is unknown, and the uptime figures leave that time out.</p>
<table><thead><tr><th scope="col">Not watched from</th><th scope="col">to</th><th scope="col">for</th></tr></thead><tbody>
${view.unknown.map((u) => html`<tr class="unknown-stretch"><td>${timeText(u.fromAt)}</td><td>${timeText(u.toAt)}</td><td>${durationText(u.toAt - u.fromAt)}</td></tr>`)}</tbody></table>`
}
<footer>As of ${timeText(view.at)}; this page loads itself again every minute.</footer></main></body></html>`.text
  );
}
