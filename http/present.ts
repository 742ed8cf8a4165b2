// Engine records → API JSON (ms → seconds, ISO dates, URLs from SITE_ROOT).
// Reference: research/healthchecks-api.md §7 (check), §9 (ping), §11 (flip), §12 (channel), §13 (badges).
import type { OutboxEntry } from "../engine/changes.ts";
import type { Channel, Check, Flip, Millis, PingRecord, Project } from "../engine/model.ts";
import { SECOND } from "../engine/model.ts";
import { nextPingAt, statusAt } from "../engine/status.ts";
import { uniqueKeyOf } from "../engine/host/unique-key.ts";
import { hasGivenUp } from "../notify/deliverer.ts";
import { badgeSignature } from "./badge-urls.ts";

export type CheckView = {
  readonly at: Millis;
  readonly siteRoot: string;
  readonly readonly: boolean;
  /** EMAIL_DOMAIN while the inbound SMTP listener runs; absent or null = no ping_email field. */
  readonly emailDomain?: string | null;
};

/** Returns the API representation of a check at `at`: 22 common fields, timeout or schedule+tz, and the key-dependent set. */
export function presentCheck(check: Check, view: CheckView): Record<string, unknown> {
  const result: Record<string, unknown> = {
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    grace: Math.floor(check.graceMs / SECOND),
    n_pings: check.nPings,
    status: statusAt(check, view.at),
    started: check.lastStartAt !== null,
    last_ping: isoSeconds(check.lastPingAt),
    next_ping: isoSeconds(nextPingAt(check)),
    manual_resume: check.manualResume,
    methods: check.methods,
    subject: check.filterSubject ? check.successKw : "",
    subject_fail: check.filterSubject ? check.failureKw : "",
    start_kw: check.startKw,
    success_kw: check.successKw,
    failure_kw: check.failureKw,
    filter_subject: check.filterSubject,
    filter_body: check.filterBody,
    filter_http_body: check.filterHttpBody,
    filter_default_fail: check.filterDefaultFail,
    badge_url: `${view.siteRoot}/b/2/${check.badgeKey}.svg`,
    // CONTRACT "Alerting fields of a check": in every representation, defaults when never set
    failure_threshold: check.failureThreshold ?? 1,
    reminder_interval: Math.floor((check.reminderIntervalMs ?? 0) / SECOND),
    muted_until: isoSeconds(check.mutedUntilAt ?? null),
  };
  if (check.lastDurationMs !== null && check.lastDurationMs > 0) result.last_duration = Math.floor(check.lastDurationMs / SECOND);
  if (view.readonly) {
    result.unique_key = uniqueKeyOf(check.uuid);
  } else {
    const updateUrl = `${view.siteRoot}/api/v3/checks/${check.uuid}`;
    result.uuid = check.uuid;
    result.ping_url = `${view.siteRoot}/ping/${check.uuid}`;
    // project extension: only with SMTP on (the default shape stays the reference's), never for
    // read-only keys (it reveals the uuid)
    if (view.emailDomain) result.ping_email = `${check.uuid}@${view.emailDomain}`;
    result.update_url = updateUrl;
    result.pause_url = `${updateUrl}/pause`;
    result.resume_url = `${updateUrl}/resume`;
    result.channels = [...check.channels].sort().join(",");
  }
  if (check.kind === "simple") {
    result.timeout = Math.floor(check.timeoutMs / SECOND);
  } else {
    result.schedule = check.schedule;
    result.tz = check.tz;
  }
  return result;
}

/** Returns a ping log entry as the API shows it; `durationMs` is its matched run duration, or null. */
export function presentPing(ping: PingRecord, opts: { checkUuid: string; siteRoot: string; durationMs: Millis | null }): Record<string, unknown> {
  const result: Record<string, unknown> = {
    type: ping.kind,
    date: isoMicros(ping.at),
    n: ping.n,
    scheme: ping.scheme,
    remote_addr: ping.remoteAddr,
    method: ping.method,
    ua: ping.ua,
    rid: ping.rid,
    body_url: ping.bodySize > 0 ? `${opts.siteRoot}/api/v3/checks/${opts.checkUuid}/pings/${ping.n}/body` : null,
  };
  // duration only on completion pings matched to a start (never on start/log pings)
  if (opts.durationMs !== null && (ping.kind === "success" || ping.kind === "fail")) {
    result.duration = Math.round(opts.durationMs / 10) / 100;
  }
  return result;
}

/** Returns a flip as the API shows it: up = 1 only for a change to "up" (pause/resume records show as 0). */
export function presentFlip(flip: Flip): { timestamp: string | null; up: 0 | 1 } {
  return { timestamp: isoSeconds(flip.at), up: flip.to === "up" ? 1 : 0 };
}

/** Returns an integration as the API shows it. */
export function presentChannel(channel: Channel): { id: string; name: string; kind: string } {
  return { id: channel.id, name: channel.name, kind: channel.kind };
}

/**
 * Returns a project's channels with their delivery state (admin API): `pending` outbox entries still to
 * be tried, `failed` ones given up, and `last_error`, the error of the newest notification (flip order)
 * that failed, or null. Delivered entries leave the outbox, so an error followed by a success is gone.
 */
export function presentChannelStates(channels: readonly Channel[], outbox: readonly OutboxEntry[]): { channels: Record<string, unknown>[] } {
  return {
    channels: channels.map((channel) => {
      const entries = distinctById(outbox).filter((entry) => entry.channel.id === channel.id);
      const failed = entries.filter(hasGivenUp).length;
      const withError = entries.filter((entry) => entry.lastError !== null);
      return { ...presentChannel(channel), pending: entries.length - failed, failed, last_error: withError.at(-1)?.lastError ?? null };
    }),
  };
}

/** Returns every outbox entry in flip order as the admin API shows it; next_attempt is null once given up. */
export function presentOutbox(outbox: readonly OutboxEntry[]): { outbox: Record<string, unknown>[] } {
  return {
    outbox: distinctById(outbox).map((entry) => {
      const givenUp = hasGivenUp(entry);
      return {
        id: entry.id,
        project: entry.projectId,
        channel: entry.channel.id,
        check: entry.check.uuid,
        flip: presentFlip(entry.flip),
        reminder: entry.reminder ?? 0, // the n-th reminder of an outage; 0 = a status change's notification
        attempts: entry.attempts,
        next_attempt: givenUp ? null : new Date(entry.nextAttemptAt).toISOString(),
        last_error: entry.lastError,
        given_up: givenUp,
      };
    }),
  };
}

/** Returns the entries once each, ordered by id (flip time, check, flip number, channel). */
function distinctById(outbox: readonly OutboxEntry[]): OutboxEntry[] {
  // every shard reads the one shared outbox table, so the pool may list an entry once per shard
  const byId = new Map(outbox.map((entry) => [entry.id, entry]));
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Returns a project as the admin API shows it (keys included). */
export function presentProject(project: Project): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    api_key: project.apiKey,
    api_key_readonly: project.apiKeyReadonly,
    ping_key: project.pingKey,
    check_limit: project.checkLimit,
    ping_log_limit: project.pingLogLimit,
    ping_body_limit: project.pingBodyLimit,
    muted_until: isoSeconds(project.mutedUntilAt ?? null),
  };
}

export const BADGE_FORMATS = ["svg", "json", "shields"] as const;

/** Returns the badge URLs of one tag ("*" = every check of the project): 2-state (-2) and 3-state variants. */
export function badgeUrls(project: Project, tag: string, siteRoot: string): Record<string, string> {
  const sig = badgeSignature(project.badgeKey, tag);
  const url = (token: string, fmt: string) =>
    tag === "*"
      ? `${siteRoot}/badge/${project.badgeKey}/${token}.${fmt}`
      : `${siteRoot}/badge/${project.badgeKey}/${token}/${encodeURIComponent(tag)}.${fmt}`;
  const urls: Record<string, string> = {};
  for (const fmt of BADGE_FORMATS) {
    urls[fmt] = url(`${sig}-2`, fmt);
    urls[`${fmt}3`] = url(sig, fmt);
  }
  return urls;
}

/** Returns the tags of a check: split on spaces, trimmed, empties dropped (reference tags_list). */
export function tagsOf(tags: string): string[] {
  return tags.split(" ").map((t) => t.trim()).filter((t) => t !== "");
}

/** Returns the project's badges: "*" plus every tag of its checks (spec §2.5). */
export function presentBadges(project: Project, checks: readonly Check[], siteRoot: string): { badges: Record<string, Record<string, string>> } {
  const tags = new Set<string>(["*"]);
  for (const check of checks) for (const tag of tagsOf(check.tags)) tags.add(tag);
  const badges: Record<string, Record<string, string>> = {};
  for (const tag of [...tags].sort()) badges[tag] = badgeUrls(project, tag, siteRoot);
  return { badges };
}

/** Returns `at` as ISO 8601 to the second with "+00:00" (microseconds dropped, reference isostring); null stays null. */
export function isoSeconds(at: Millis | null): string | null {
  if (at === null) return null;
  return new Date(Math.floor(at / SECOND) * SECOND).toISOString().slice(0, 19) + "+00:00";
}

/** Returns `at` as ISO 8601 with microseconds when the fraction is non-zero, and "+00:00" (ping dates). */
export function isoMicros(at: Millis): string {
  at = Math.floor(at);
  const ms = ((at % SECOND) + SECOND) % SECOND;
  const base = new Date(at - ms).toISOString().slice(0, 19);
  return ms === 0 ? `${base}+00:00` : `${base}.${String(ms).padStart(3, "0")}000+00:00`;
}
