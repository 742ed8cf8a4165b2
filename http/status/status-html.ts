// The public status page as HTML: the title, each check's name, status word, uptime over 90 days and a bar
// per day, and the incidents. It stands alone (no dashboard script, its style inline under a CSP hash) and
// shows only what the JSON shows: no uuid, key, ping URL or body.
import { createHash } from "node:crypto";
import type { Millis } from "../../engine/model.ts";
import { DAY } from "../../engine/model.ts";
import type { Html } from "../dashboard/html.ts";
import { html, raw } from "../dashboard/html.ts";
import type { StatusCheck, StatusView } from "./status-view.ts";

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2327;background:#f6f7f7}
main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.6rem;margin:.2rem 0 1rem}
.check{background:#fff;border:1px solid #dcdcde;border-radius:6px;padding:.8rem 1rem;margin:0 0 .8rem}
.head{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}.name{font-weight:600;overflow-wrap:anywhere}
.word{font-weight:600}.up{color:#00703c}.down{color:#b32d2e}.grace{color:#8a6100}.new,.paused{color:#50575e}
.bars{display:flex;gap:1px;height:2rem;margin:.5rem 0 .2rem}.bars span{flex:1;border-radius:1px;background:#c3c4c7}
.bars .full{background:#2e9e5b}.bars .most{background:#9bc53d}.bars .some{background:#e0a526}.bars .low{background:#c9372c}
.legend{display:flex;justify-content:space-between;color:#50575e;font-size:.85rem}
table{border-collapse:collapse;width:100%;background:#fff}td,th{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #dcdcde}
footer{color:#50575e;font-size:.85rem;margin-top:1.5rem}`;

/** The Content-Security-Policy of the page: its one inline style by hash, nothing else from anywhere. */
export const STATUS_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const dayText = (at: Millis) => new Date(at).toISOString().slice(0, 10);
const timeText = (at: Millis) => new Date(at).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** A day's bar: its class by how much of the day was up, and its date and share on hover. */
function bar(percent: number | null, dayAt: Millis): Html {
  const cls = percent === null ? "none" : percent >= 100 ? "full" : percent >= 99 ? "most" : percent >= 90 ? "some" : "low";
  return html`<span class="${cls}" title="${dayText(dayAt)}: ${percent === null ? "no data" : `${percent}% up`}"></span>`;
}

function checkBlock(check: StatusCheck, firstDayAt: Millis): Html {
  return html`<section class="check"><div class="head"><span class="name">${check.name}</span>
<span><span class="word ${check.status}">${check.status}</span> · <span class="uptime">${check.uptimePercent}%</span> uptime over 90 days</span></div>
<div class="bars" role="img" aria-label="Uptime per day over the last 90 days">${check.days.map((percent, i) => bar(percent, firstDayAt + i * DAY))}</div>
<div class="legend"><span>90 days ago</span><span>today</span></div></section>`;
}

export function statusPageHtml(view: StatusView): string {
  const incidents = view.incidents.length === 0
    ? html`<p>No incidents in the last 90 days.</p>`
    : html`<table><thead><tr><th scope="col">Check</th><th scope="col">Down from</th><th scope="col">Up again</th></tr></thead><tbody>
${view.incidents.map((i) => html`<tr><td>${i.check}</td><td>${timeText(i.startedAt)}</td><td>${i.endedAt === null ? "ongoing" : timeText(i.endedAt)}</td></tr>`)}</tbody></table>`;
  return "<!doctype html>\n" + html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.title}</title><style>${raw(STYLE)}</style></head>
<body><main><h1>${view.title}</h1>
${view.checks.map((check) => checkBlock(check, view.firstDayAt))}
<h2>Incidents</h2>${incidents}
<footer>As of ${timeText(view.at)}.</footer></main></body></html>`.text;
}
