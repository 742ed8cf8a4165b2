// The check's API JSON shape (reference Check.to_dict, research/healthchecks-api.md §7): one home for the
// API's answers, the host's cache of presented checks and the webhook's $JSON.
import type { Check, EscalationStep, Millis, Status } from "../engine/model.ts";
import { SECOND } from "../engine/model.ts";
import { isoSeconds } from "../lib/iso-dates.ts";
import { nextPingAt, statusAt } from "../engine/status.ts";
import { uniqueKeyOf } from "./unique-key.ts";
import type { ApiVersion } from "./api-versions.ts";
import { apiRootOf, showsStartedStatus } from "./api-versions.ts";

export type CheckView = {
  readonly at: Millis;
  readonly siteRoot: string;
  readonly readonly: boolean;
  /** EMAIL_DOMAIN while the inbound SMTP listener runs; absent or null = no ping_email field. */
  readonly emailDomain?: string | null;
  /** The API version asked (host/api-versions.ts); absent: 3, as the webhooks' $JSON shows a check. */
  readonly version?: ApiVersion;
};

/** Returns the status a check shows at `at` in an API version: v1 says "started" while a run is open and not overdue. */
export function shownStatus(check: Check, at: Millis, version: ApiVersion): Status | "grace" | "started" {
  // reference get_status(with_started): an open run within its grace is "started" whatever the stored status
  if (showsStartedStatus(version) && check.lastStartAt !== null && at < check.lastStartAt + check.graceMs) return "started";
  return statusAt(check, at);
}

/** Returns the API representation of a check at `at`: 22 common fields, timeout or schedule+tz, and the key-dependent set. */
export function presentCheck(check: Check, view: CheckView): Record<string, unknown> {
  const version = view.version ?? 3;
  const result: Record<string, unknown> = {
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    grace: Math.floor(check.graceMs / SECOND),
    n_pings: check.nPings,
    status: shownStatus(check, view.at, version),
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
    // CONTRACT "Alerting, second part"
    max_duration: Math.floor((check.maxDurationMs ?? 0) / SECOND),
    acknowledged: check.alert?.acknowledged !== undefined,
    // a read-only key sees the checks it names by their unique_key: a uuid is a ping capability
    depends_on: (check.dependsOn ?? []).map((uuid) => (view.readonly ? uniqueKeyOf(uuid) : uuid)).join(","),
    held_by: heldByOf(check, view),
    // CONTRACT "Alerting, third part"
    min_duration: Math.floor((check.minDurationMs ?? 0) / SECOND),
    alert_on_overlap: check.alertOnOverlap ?? false,
    max_runs_per_period: check.maxRunsPerPeriod ?? 0,
    // a read-only key sees when each step comes, not which integrations it notifies (as it sees no channels)
    escalation: check.escalation === undefined ? null : escalationJson(check.escalation, view.readonly),
    escalated: check.alert?.escalated ?? 0,
  };
  if (check.lastDurationMs !== null && check.lastDurationMs > 0) result.last_duration = Math.floor(check.lastDurationMs / SECOND);
  if (view.readonly) {
    result.unique_key = uniqueKeyOf(check.uuid);
  } else {
    const updateUrl = `${apiRootOf(view.siteRoot, version)}/checks/${check.uuid}`;
    result.uuid = check.uuid;
    result.ping_url = `${view.siteRoot}/ping/${check.uuid}`;
    // project extension: only with SMTP on (the default shape stays the reference's), never for
    // read-only keys (it reveals the uuid)
    if (view.emailDomain) result.ping_email = `${check.uuid}@${view.emailDomain}`;
    result.update_url = updateUrl;
    result.pause_url = `${updateUrl}/pause`;
    result.resume_url = `${updateUrl}/resume`;
    result.channels = [...check.channels].sort().join(",");
    // project extension: only on a check that has one (the default shape stays the reference's); a ping
    // credential, as the uuid is: never for read-only keys
    if (check.pushToken !== undefined) result.push_token = check.pushToken;
  }
  if (check.kind === "simple") {
    result.timeout = Math.floor(check.timeoutMs / SECOND);
  } else {
    result.schedule = check.schedule;
    result.tz = check.tz;
  }
  return result;
}

/** Each step's `after` in seconds and, unless `readonly`, its integrations' ids (a read-only key sees no channels). */
export function escalationJson(policy: readonly EscalationStep[], readonly: boolean): Record<string, unknown>[] {
  return policy.map((step) =>
    readonly
      ? { after: Math.floor(step.afterMs / SECOND) }
      : { after: Math.floor(step.afterMs / SECOND), channels: [...step.channels].sort().join(",") },
  );
}

function heldByOf(check: Check, view: CheckView): string | null {
  const uuid = check.alert?.heldBy;
  if (uuid === undefined) return null;
  return view.readonly ? uniqueKeyOf(uuid) : uuid;
}
