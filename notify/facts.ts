// The facts every message is worded from: the check, flip and last ping of an outbox entry as they were at
// the flip, and the lines the reference's messages share (reason, downtime, reminder, last ping). Pure.
import type { NoticeChannel, NoticeCheck, OutboxEntry } from "../engine/changes.ts";
import type { Check, Millis, PingRecord } from "../engine/model.ts";
import { assertNever } from "../engine/model.ts";
import { isoSeconds } from "../lib/iso-dates.ts";
import { uniqueKeyOf } from "../host/unique-key.ts";
import type { ServiceSettings } from "./kinds/settings.ts";
import { formatDowntime } from "./wording.ts";

/**
 * Facts an outbox entry may carry beyond OutboxEntry; absent means unknown and the message leaves
 * them out. lastPingBody feeds $BODY and the body sections; downSinceAt (the previous down flip's
 * instant, for an up flip) gives the downtime line; projectName the "Project" field.
 */
export type EntryExtras = {
  readonly lastPingBody?: Uint8Array | null;
  readonly projectName?: string;
  readonly downSinceAt?: Millis | null;
};
export type RenderEntry = OutboxEntry & EntryExtras;

export type RenderOptions = {
  readonly siteRoot: string;
  readonly siteName: string;
  readonly services?: ServiceSettings; // default: the real services, no tokens
};

export type Direction = "up" | "down";

/** Returns the check's public link: SITE_ROOT/cloaked/<sha1 of the uuid's first 16 hex digits>/. */
export function cloakedUrl(check: Pick<Check, "uuid">, siteRoot: string): string {
  return `${siteRoot}/cloaked/${uniqueKeyOf(check.uuid)}/`;
}

// ---- shared facts --------------------------------------------------------------------------------

export type Facts = {
  readonly check: NoticeCheck | Check; // whole only for channels that send the check's API JSON (rendersCheckJson)
  readonly channel: NoticeChannel;
  readonly direction: Direction;
  readonly at: Millis; // the flip's instant: "now" of every relative time
  readonly reason: string; // long form, "" when none
  readonly downtimeMs: Millis | null;
  readonly name: string; // name, or the uuid when empty
  readonly ping: PingRecord | null;
  readonly body: string | null; // last ping body as text, null = none
  readonly bodyBytes: number;
  readonly projectName: string;
  readonly opts: RenderOptions;
  /** A reminder ("still down"): the outage's n-th, and when it began if known; null = a status change. */
  readonly reminder: { readonly n: number; readonly downSinceAt: Millis | null } | null;
  /** An escalation step ("still down, not acknowledged"): its number, and when the outage began if known; null = none. */
  readonly escalation: { readonly step: number; readonly downSinceAt: Millis | null } | null;
  /** A failure that found the check down already (every_failure): when the outage began if known; null = none. */
  readonly failedAgain: { readonly downSinceAt: Millis | null } | null;
};

/** True for a message about an outage that goes on (a reminder, an escalation step, a failure while down), not a status change. */
export function isStillDown(facts: Pick<Facts, "reminder" | "escalation" | "failedAgain">): boolean {
  return facts.reminder !== null || facts.escalation !== null || facts.failedAgain !== null;
}

export function factsOf(entry: RenderEntry, direction: Direction, opts: RenderOptions): Facts {
  const bytes = entry.lastPing !== null && entry.lastPingBody ? entry.lastPingBody : null;
  const downSinceAt = entry.downSinceAt ?? null;
  return {
    check: entry.check,
    channel: entry.channel,
    direction,
    at: entry.flip.at,
    reason: reasonOf(entry) + downtimeClause(entry),
    downtimeMs: direction === "up" && entry.flip.from === "down" && downSinceAt !== null ? entry.flip.at - downSinceAt : null,
    name: entry.check.name || entry.check.uuid,
    ping: entry.lastPing,
    body: bytes === null || bytes.length === 0 ? null : new TextDecoder("utf-8").decode(bytes),
    bodyBytes: bytes?.length ?? 0,
    projectName: entry.projectName ?? "",
    opts,
    reminder: entry.reminder === undefined ? null : { n: entry.reminder, downSinceAt },
    escalation: entry.escalation === undefined ? null : { step: entry.escalation, downSinceAt },
    failedAgain: entry.failedAgain === undefined ? null : { downSinceAt },
  };
}

/** "; hcd was not running from ... to ... (...)" for a down flip whose deadline fell in hcd's own downtime, else "". */
function downtimeClause(entry: RenderEntry): string {
  const downtime = entry.downtime;
  if (downtime === undefined || entry.flip.to !== "down") return "";
  return `; hcd was not running from ${isoSeconds(downtime.fromAt)} to ${isoSeconds(downtime.toAt)} (${formatDowntime(downtime.toAt - downtime.fromAt)})`;
}

/** The flip's reason in words; an open run that outlived max_duration names when it started; a run rule says what it saw. */
function reasonOf(entry: RenderEntry): string {
  if (entry.flip.reason === "duration") {
    return `the run is taking too long: started at ${entry.runStartedAt === undefined ? "an unknown time" : isoSeconds(entry.runStartedAt)}`;
  }
  const run = entry.run;
  if (run === undefined) return reasonLong(entry.flip.reason);
  switch (run.rule) {
    case "too_fast":
      return `the run finished too fast: finished in ${seconds(run.durationMs)}, expected at least ${seconds(run.minDurationMs)}`;
    case "too_often":
      return `it ran too often: ${run.runs} successful runs in one period, at most ${run.maxRuns} expected`;
    case "overlap":
      return `runs overlapped: a run started at ${isoSeconds(run.openSinceAt)} was still going`;
    default:
      return assertNever(run);
  }
}

/** A run's duration as the too-fast reason states it: "3 s" (whole seconds, rounded down). */
function seconds(ms: Millis): string {
  return `${Math.floor(ms / 1000)} s`;
}

export function reasonLong(reason: string): string {
  if (reason === "timeout") return "success signal did not arrive on time, grace time passed";
  if (reason === "fail") return "received a failure signal";
  if (reason === "too_fast") return "the run finished too fast";
  if (reason === "too_often") return "it ran too often";
  if (reason === "overlap") return "runs overlapped";
  return "";
}

/** "Success", "Failure", "Exit status N", "Start", "Log", "Ignored" (reference formatted_kind). */
export function pingKindLabel(ping: PingRecord, started: "Start" | "Started"): string {
  switch (ping.kind) {
    case "success":
      return "Success";
    case "fail":
      return ping.exitStatus !== null && ping.exitStatus > 0 ? `Exit status ${ping.exitStatus}` : "Failure";
    case "start":
      return started;
    case "log":
      return "Log";
    case "ign":
      return "Ignored";
    default:
      return assertNever(ping.kind);
  }
}

export function statusLine(facts: Facts): string | null {
  if (facts.reminder !== null) return reminderLine(facts.reminder, facts.at);
  if (facts.escalation !== null)
    return `Escalated (step ${facts.escalation.step}): ${sinceText("down", facts.escalation.downSinceAt, facts.at)}, and not acknowledged.`;
  if (facts.failedAgain !== null)
    return `Failed again: ${facts.reason === "" ? "a failure" : facts.reason}; ${sinceText("still down", facts.failedAgain.downSinceAt, facts.at)}.`;
  if (facts.reason !== "") return `Reason: ${facts.reason}.`;
  if (facts.downtimeMs !== null) return `The downtime lasted ${formatDowntime(facts.downtimeMs)}.`;
  return null;
}

/** "Still down since 2026-01-01T00:00:00+00:00 (2 hours, 0 minutes), 2 reminders so far." */
export function reminderLine(reminder: NonNullable<Facts["reminder"]>, at: Millis): string {
  const since =
    reminder.downSinceAt === null ? "" : ` since ${isoSeconds(reminder.downSinceAt)} (${formatDowntime(at - reminder.downSinceAt)})`;
  return `Still down${since}, ${reminder.n} reminder${reminder.n === 1 ? "" : "s"} so far.`;
}

/** "down since 2026-01-01T00:00:00+00:00 (15 minutes)", or just `word` when the outage's start is unknown. */
function sinceText(word: string, downSinceAt: Millis | null, at: Millis): string {
  return downSinceAt === null ? word : `${word} since ${isoSeconds(downSinceAt)} (${formatDowntime(at - downSinceAt)})`;
}

/** "is DOWN", or "is still DOWN" for a reminder, an escalation step or a failure while down. */
export function isWord(facts: Facts): string {
  return `is ${isStillDown(facts) ? "still " : ""}${facts.direction.toUpperCase()}`;
}

/** Returns the last ping body cut to `max` characters plus "\n[truncated]", or null without a body. */
export function cutBody(body: string | null, max: number): string | null {
  if (body === null) return null;
  return body.length > max ? `${body.slice(0, max)}\n[truncated]` : body;
}
