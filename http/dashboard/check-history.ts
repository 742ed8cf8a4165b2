// A check's events on its page: its kept pings, its status changes, its notifications still in the outbox
// (waiting, failing with their error, or given up) and those delivered (the newest 100 the store keeps),
// newest first, 50 a page, paged back to the oldest kept by "Older events" links (?events=<page>, 1 = the newest).
import type { OutboxEntry, SentNotice } from "../../engine/changes.ts";
import { hasGivenUp } from "../../engine/changes.ts";
import type { Flip, Millis, PingRecord } from "../../engine/model.ts";
import { httpError } from "../errors.ts";
import { durationText } from "./format.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import { timeHtml } from "./time-html.ts";

export const EVENTS_PER_PAGE = 50;

/** A kept ping with its matched run duration (null: none). */
export type LoggedPing = { readonly ping: PingRecord; readonly durationMs: Millis | null };

type CheckEvent =
  | { readonly kind: "flip"; readonly at: Millis; readonly flip: Flip }
  | { readonly kind: "ping"; readonly at: Millis; readonly logged: LoggedPing }
  | { readonly kind: "notice"; readonly at: Millis; readonly entry: OutboxEntry }
  | { readonly kind: "sent"; readonly at: Millis; readonly sent: SentNotice };

const FLIP_REASON_TEXT = {
  timeout: "no ping in time",
  fail: "failure signal",
  duration: "run took too long",
  too_fast: "run finished too fast",
  overlap: "runs overlapped",
  too_often: "ran too often",
} as const;

/** The page of events a request asks for: `?events=<n>`, 1 when absent; anything but a whole number from 1 is a 400. */
export function eventsPageOf(search: URLSearchParams): number {
  const asked = search.get("events");
  if (asked === null) return 1;
  const page = /^[1-9][0-9]{0,5}$/.test(asked) ? Number(asked) : NaN;
  if (!Number.isInteger(page)) throw httpError(400, "events: expected a page number (1 = the newest events)");
  return page;
}

/**
 * Every event, newest first. A flip and the ping that caused it share their instant: the flip comes
 * first (it happened as the ping was judged), its notifications before it, and pings of one instant keep
 * their log order (by n).
 */
function eventsOf(
  flips: readonly Flip[],
  pings: readonly LoggedPing[],
  notices: readonly OutboxEntry[],
  sent: readonly SentNotice[],
): CheckEvent[] {
  const events: CheckEvent[] = [
    ...sent.map((notice) => ({ kind: "sent" as const, at: notice.sentAt, sent: notice })),
    ...notices.map((entry) => ({ kind: "notice" as const, at: entry.flip.at, entry })),
    ...flips.map((flip) => ({ kind: "flip" as const, at: flip.at, flip })),
    ...pings.map((logged) => ({ kind: "ping" as const, at: logged.ping.at, logged })),
  ];
  // at one instant: a flip's notifications, then the flip, then the pings
  const order = (e: CheckEvent) =>
    e.kind === "notice" || e.kind === "sent" ? Number.MAX_SAFE_INTEGER : e.kind === "flip" ? Number.MAX_SAFE_INTEGER - 1 : e.logged.ping.n;
  return events.sort((a, b) => b.at - a.at || order(b) - order(a));
}

/** The events section's content: one page of the events table and its links to older and newest events. */
export function eventsSection(opts: {
  readonly flips: readonly Flip[];
  readonly pings: readonly LoggedPing[] | null; // null: not shown to this viewer
  readonly notices: readonly OutboxEntry[]; // this check's outbox entries
  readonly sent: readonly SentNotice[]; // this check's delivered notifications
  readonly page: number;
  readonly base: string; // the check page's path
  readonly statusBadge: (word: Flip["to"]) => Html;
}): Html {
  const events = eventsOf(opts.flips, opts.pings ?? [], opts.notices, opts.sent);
  if (events.length === 0) return html`<p>No events yet.</p>`;
  const first = (opts.page - 1) * EVENTS_PER_PAGE;
  const shown = events.slice(first, first + EVENTS_PER_PAGE);
  const hasOlder = first + EVENTS_PER_PAGE < events.length;
  const nav = html`<nav class="events-nav" aria-label="Events pages">${opts.page > 1 ? html`<a href="${opts.base}">Newest</a> ` : ""}${hasOlder ? html`<a href="${opts.base}?events=${opts.page + 1}">Older events</a>` : ""}</nav>`;
  const range =
    shown.length === 0 ? "no events on this page" : `events ${first + 1}–${first + shown.length} of ${events.length}, newest first`;
  return html`<p class="hint">${range}</p>
${
  shown.length === 0
    ? ""
    : html`<table class="list events"><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Source</th><th scope="col">User agent</th><th scope="col">Duration</th><th scope="col">Body</th></tr></thead>
<tbody>${shown.map((event) => (event.kind === "flip" ? flipRow(event.flip, opts.statusBadge) : event.kind === "ping" ? pingRow(event.logged, opts.base) : event.kind === "sent" ? sentRow(event.sent) : noticeRow(event.entry)))}</tbody></table>`
}
${nav}`;
}

function flipRow(flip: Flip, statusBadge: (word: Flip["to"]) => Html): Html {
  return html`<tr class="flip"><td>${timeHtml(flip.at)}</td>
<td colspan="5">status changed: ${flip.from} → ${statusBadge(flip.to)}${flip.reason === "" ? "" : html` (${FLIP_REASON_TEXT[flip.reason]})`}</td></tr>`;
}

/** What the run rules noted of a ping (CONTRACT "Alerting, third part"). */
const NOTE_TEXT = {
  overlap: "overlap: another run was still going",
  too_fast: "too fast: the run was shorter than the check's min_duration",
  too_often: "too often: more runs in this period than the check's max_runs_per_period",
} as const;

function pingRow({ ping, durationMs }: LoggedPing, base: string): Html {
  const note = ping.note === undefined ? "" : html` <span class="ping-note note-${ping.note}">${NOTE_TEXT[ping.note]}</span>`;
  return html`<tr class="ping ping-${ping.kind}"><td>${timeHtml(ping.at)}</td><td>${ping.kind === "ign" ? "ignored" : ping.kind}${ping.exitStatus === null ? "" : html` (exit ${ping.exitStatus})`}${note}</td>
<td>${ping.scheme} ${ping.method} from ${ping.remoteAddr}</td><td class="ua">${ping.ua}</td>
<td>${durationMs === null ? "" : durationText(durationMs)}</td>
<td>${ping.bodySize > 0 ? html`<a href="${base}/pings/${ping.n}/body">body (${ping.bodySize} bytes)</a>` : ""}</td></tr>`;
}

/** A notification not delivered yet: waiting for its first try, failing (and retried), or given up. */
/** What a notification was: a status change's, a reminder, an escalation step, a failure while down. */
function noticeWhat(notice: Pick<OutboxEntry, "reminder" | "escalation" | "failedAgain">, to: string): string {
  if (notice.reminder !== undefined) return `reminder ${notice.reminder}`;
  if (notice.escalation !== undefined) return `escalation step ${notice.escalation}`;
  if (notice.failedAgain !== undefined) return "notification of another failure";
  return `notification of "${to}"`;
}

function noticeRow(entry: OutboxEntry): Html {
  const what = noticeWhat(entry, entry.flip.to);
  const state = hasGivenUp(entry)
    ? `delivery failed, given up after ${entry.attempts} attempts`
    : entry.lastError === null
      ? "waiting to be sent"
      : html`delivery failed (${entry.attempts === 1 ? "1 attempt" : `${entry.attempts} attempts`}), next try ${timeHtml(entry.nextAttemptAt)}`;
  return html`<tr class="notice${entry.lastError === null ? "" : " notice-error"}"><td>${timeHtml(entry.flip.at)}</td>
<td colspan="5">${what} via ${entry.channel.name === "" ? entry.channel.kind : entry.channel.name}: ${state}${entry.lastError === null ? "" : html`: <span class="error-text">${entry.lastError}</span>`}</td></tr>`;
}

/** A notification its channel accepted. */
function sentRow(sent: SentNotice): Html {
  const what = noticeWhat(sent, sent.to);
  return html`<tr class="notice notice-sent"><td>${timeHtml(sent.sentAt)}</td>
<td colspan="5">${what} sent via ${sent.channel.name === "" ? sent.channel.kind : sent.channel.name}</td></tr>`;
}

/** The check's entries of the outbox, once each (every shard reads the one shared outbox, so the pool may list one per shard). */
export function checkNotices(outbox: readonly OutboxEntry[], uuid: string): OutboxEntry[] {
  return [...new Map(outbox.filter((entry) => entry.check.uuid === uuid).map((entry) => [entry.id, entry])).values()];
}
