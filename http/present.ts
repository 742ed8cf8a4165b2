// Engine records → API JSON (ms → seconds, ISO dates, URLs from SITE_ROOT).
// Reference: research/healthchecks-api.md §7 (check), §9 (ping), §11 (flip), §12 (channel), §13 (badges).
import type { OutboxEntry } from "../engine/changes.ts";
import { hasGivenUp } from "../engine/changes.ts";
import { isoMicros, isoSeconds } from "../lib/iso-dates.ts";
import { tagsOf } from "../engine/model.ts";
import type {
  Channel,
  ChannelValue,
  Check,
  EscalationStep,
  Flip,
  MaintenanceWindow,
  Millis,
  PingRecord,
  Project,
} from "../engine/model.ts";
import { badgeSignature } from "./badge-urls.ts";
import type { ApiVersion } from "../host/api-versions.ts";
import { apiRootOf } from "../host/api-versions.ts";
import { escalationJson } from "../host/check-json.ts";

/** Returns a ping log entry as the API (`version`, default 3) shows it; `durationMs` is its matched run duration, or null. */
export function presentPing(
  ping: PingRecord,
  opts: { checkUuid: string; siteRoot: string; durationMs: Millis | null; version?: ApiVersion },
): Record<string, unknown> {
  const apiRoot = apiRootOf(opts.siteRoot, opts.version ?? 3);
  const result: Record<string, unknown> = {
    type: ping.kind,
    date: isoMicros(ping.at),
    n: ping.n,
    scheme: ping.scheme,
    remote_addr: ping.remoteAddr,
    method: ping.method,
    ua: ping.ua,
    rid: ping.rid,
    body_url: ping.bodySize > 0 ? `${apiRoot}/checks/${opts.checkUuid}/pings/${ping.n}/body` : null,
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
 * Returns a channel's value as the admin API takes it when the channel is added (http/admin-input.ts): the
 * address or URL of the kinds that take a string (a webhook that posts the check's JSON: its URL), else the
 * object of its fields, a yes-or-no field of the kind's form (`form`) as true or false again. Adding a
 * channel with it gives the same stored value.
 */
export function presentChannelValue(value: ChannelValue, form: readonly { readonly name: string; readonly input: string }[] = []): unknown {
  switch (value.kind) {
    case "email":
      return value.address;
    case "slack":
    case "discord":
      return value.url;
    case "webhook":
      return value.json ? value.spec.url_down : { ...value.spec };
    case "ntfy":
      return { ...value.spec };
    default: {
      if (!("fields" in value)) return null;
      const fields: Record<string, unknown> = { ...value.fields };
      for (const field of form)
        if (field.input === "bool" && typeof fields[field.name] === "number") fields[field.name] = fields[field.name] !== 0;
      return fields;
    }
  }
}

/**
 * Returns a project's channels with their delivery state (admin API): `pending` outbox entries still to
 * be tried, `failed` ones given up, and `last_error`, the error of the newest notification (flip order)
 * that failed, or null. Delivered entries leave the outbox, so an error followed by a success is gone.
 */
export function presentChannelStates(
  channels: readonly Channel[],
  outbox: readonly OutboxEntry[],
): { channels: Record<string, unknown>[] } {
  return {
    channels: channels.map((channel) => {
      const entries = distinctById(outbox).filter((entry) => entry.channel.id === channel.id);
      const failed = entries.filter(hasGivenUp).length;
      const withError = entries.filter((entry) => entry.lastError !== null);
      return {
        ...presentChannel(channel),
        pending: entries.length - failed,
        failed,
        last_error: withError.at(-1)?.lastError ?? null,
        needs_settings: channel.needsSettings === true,
        every_failure: channel.everyFailure === true,
      };
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
/** A maintenance window as the admin API shows it (duration in seconds). */
export function presentMaintenance(window: MaintenanceWindow): Record<string, unknown> {
  return { id: window.id, name: window.name, schedule: window.schedule, tz: window.tz, duration: Math.floor(window.durationMs / 1000) };
}

/** An escalation policy as the API shows it (one home: host/check-json.ts). */
export const presentEscalation = (policy: readonly EscalationStep[], readonly: boolean) => escalationJson(policy, readonly);

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
    // keys brought over from Healthchecks as its hashes (their plain text is not known here): which ones still work
    hashed_keys:
      project.hashedApiKeys === undefined
        ? []
        : [
            ...(project.hashedApiKeys.apiKey === null ? [] : ["read-write"]),
            ...(project.hashedApiKeys.apiKeyReadonly === null ? [] : ["read-only"]),
          ],
  };
}

export const BADGE_FORMATS = ["svg", "json", "shields"] as const;

/** Returns the badge URLs of one tag ("*" = every check of the project): 2-state (-2) and 3-state variants. */
export function badgeUrls(project: Project, tag: string, opts: { siteRoot: string; badgeSecret: string }): Record<string, string> {
  const { siteRoot } = opts;
  const sig = badgeSignature(opts.badgeSecret, project.badgeKey, tag);
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

/** Returns the project's badges: "*" plus every tag of its checks (spec §2.5). */
export function presentBadges(
  project: Project,
  checks: readonly Check[],
  opts: { siteRoot: string; badgeSecret: string },
): { badges: Record<string, Record<string, string>> } {
  const tags = new Set<string>(["*"]);
  for (const check of checks) for (const tag of tagsOf(check.tags)) tags.add(tag);
  const badges: Record<string, Record<string, string>> = {};
  for (const tag of [...tags].sort()) badges[tag] = badgeUrls(project, tag, opts);
  return { badges };
}
