// Every change a check undergoes: (check, event, time) → the new check plus the flips to record.
// Pure: the host stores what these return and re-arms the wheel from downAt(step.check).
import type { Check, CheckSpec, EscalationStep, Flip, FlipReason, Millis, PingKind, PingNote, Status } from "./model.ts";
import { assertNever, checkWith } from "./model.ts";
import { countFailure, endDowntimeHold, resetFailures, withPeriod } from "./alerting.ts";
import type { RunFacts } from "./runs.ts";
import { judgeStart, judgeSuccess } from "./runs.ts";
import type { Outcome } from "./outcome.ts";
import { fail, ok } from "./outcome.ts";
import type { ScheduleKind } from "./schedule.ts";
import { guessKind } from "./schedule.ts";
import { downAt, runLimitAt, statusAt } from "./status.ts";

/**
 * A check after an event, and the flips (0 or 1) the event produced. A ping's step also says what the run
 * rules made of it (`note`) and, when it counted as a failure, which (`failure`, with the run's `facts`).
 */
export type Step = {
  readonly check: Check;
  readonly flips: Flip[];
  readonly note?: PingNote | null;
  readonly failure?: FlipReason | null;
  readonly facts?: RunFacts | null;
};

/** Applies a ping already classified as `kind` (see classify.ts) that arrived at `at` (reference Check.ping). */
export function onPing(check: Check, kind: PingKind, rid: string | null, at: Millis): Step {
  const nPings = check.nPings + 1;
  switch (kind) {
    case "start": {
      // opens a run (overwriting an open one); status and last ping untouched, even when down
      const judged = judgeStart(check); // a run still open: an overlap (a failure under alert_on_overlap)
      const started = checkWith(check, { nPings, lastStartAt: at, lastStartRid: rid });
      if (judged.failure === null)
        return judged.note === null ? { check: started, flips: [] } : { check: started, flips: [], note: judged.note };
      return failed(started, judged.failure, at, judged);
    }
    case "log":
    case "ign":
      return { check: checkWith(check, { nPings }), flips: [] };
    case "success":
    case "fail": {
      const runOpen = check.lastStartAt !== null;
      const paired = runOpen && check.lastStartRid === rid; // two missing rids pair too
      const endsRun = paired || kind === "fail" || rid === null; // another run's success leaves this one open
      const judged = kind === "success" ? judgeSuccess(check, rid, at) : null; // min_duration, overlap, max_runs_per_period
      // a signal after hcd's own downtime: the check's deadlines count from it, no longer from the downtime
      const next = checkWith(endDowntimeHold(judged === null ? check : withPeriod(check, judged.period)), {
        nPings,
        lastPingAt: at,
        lastDurationMs: paired && check.lastStartAt !== null ? at - check.lastStartAt : null,
        lastStartAt: endsRun ? null : check.lastStartAt,
        lastStartRid: endsRun ? null : check.lastStartRid,
      });
      if (judged !== null && judged.failure === null) {
        const up = flipTo(resetFailures(next), { to: "up", at, reason: "" });
        return judged.note === null ? up : { ...up, note: judged.note };
      }
      return failed(next, judged?.failure ?? "fail", at, judged);
    }
    default:
      return assertNever(kind);
  }
}

/**
 * A signal that counts as a failure (a failure signal, or a run rule's `reason`): down only on the N-th
 * consecutive one (failure_threshold); earlier ones leave the status as it was.
 */
function failed(check: Check, reason: FlipReason, at: Millis, judged: { note: PingNote | null; facts: RunFacts | null } | null): Step {
  const failure = countFailure(check);
  const step = failure.goesDown ? flipTo(failure.check, { to: "down", at, reason }) : { check: failure.check, flips: [] };
  return judged === null ? { ...step, failure: reason } : { ...step, note: judged.note, failure: reason, facts: judged.facts };
}

/** Pauses the check at `at`: a flip to paused without notification; a no-op when already paused. */
export function onPause(check: Check, at: Millis): Step {
  if (check.status === "paused") return { check, flips: [] };
  // api §8: pause clears the open run (started) and keeps last_ping
  return flipTo(checkWith(check, { lastStartAt: null, lastStartRid: null }), { to: "paused", at, reason: "" });
}

/** Resumes a paused check at `at` as new (last ping and run cleared); fails with not_paused otherwise. */
export function onResume(check: Check, at: Millis): Outcome<Step> {
  if (check.status !== "paused") return fail({ code: "not_paused" });
  return ok(flipTo(checkWith(check, { lastPingAt: null, lastStartAt: null, lastStartRid: null }), { to: "new", at, reason: "" }));
}

/**
 * Applies a timer-wheel deadline noticed at `at`: a check that is down by then is stored down with a
 * "timeout" flip stamped at its exact deadline (downAt, never later than `at`, never before `notBeforeAt`);
 * otherwise unchanged.
 */
export function onDeadline(check: Check, at: Millis, notBeforeAt: Millis = -Infinity): Step {
  if (check.status === "down" || statusAt(check, at) !== "down") return { check, flips: [] };
  // fact sheet §5: the flip is created at going_down_after(), not at the processing time
  const deadlineAt = downAt(check) ?? at;
  // A success that leaves an old run open can make the check due at once: the flip can't predate that ping;
  // nor can a deadline a settings change moved into the past predate the change (`notBeforeAt`).
  const stampAt = Math.max(Math.min(deadlineAt, at), check.lastPingAt ?? -Infinity, notBeforeAt);
  // an open run that outlived max_duration says so ("duration"); a missed ping, or a run past its grace, is a "timeout"
  return flipTo(check, { to: "down", at: stampAt, reason: runLimitAt(check) === null ? "timeout" : "duration" });
}

/** Options for applySpec: ids the shard already resolved, and the kind validateSchedule returned. */
export type ResolvedSpec = {
  readonly channelIds?: readonly string[]; // replaces the check's channels; absent = unchanged
  /** The escalation policy with its channels resolved: null = the project's; absent = unchanged. */
  readonly escalation?: readonly EscalationStep[] | null;
  readonly scheduleKind?: ScheduleKind; // kind of spec.schedule; absent = guessKind(spec.schedule)
};

/**
 * Returns the check with a validated spec applied (api research §5); channel refs in the spec are
 * ignored here: pass the ids the shard resolved as `resolved.channelIds`. Status and pings never change.
 */
export function applySpec(check: Check, spec: CheckSpec, resolved: ResolvedSpec = {}): Check {
  // a schedule sets kind and schedule (the timeout is ignored, kept hidden); else a timeout makes the
  // check simple (the schedule stays hidden for later). One plain literal: a spread into it made V8 build
  // a dictionary, measured 45 us a create instead of 1.
  const schedule = spec.schedule !== undefined && spec.schedule !== "" ? spec.schedule : null;
  return checkWith(check, {
    kind: schedule !== null ? (resolved.scheduleKind ?? guessKind(schedule)) : spec.timeoutMs !== undefined ? "simple" : check.kind,
    schedule: schedule ?? check.schedule,
    timeoutMs: schedule === null && spec.timeoutMs !== undefined ? spec.timeoutMs : check.timeoutMs,
    name: spec.name ?? check.name,
    slug: spec.slug ?? check.slug, // v3: name never touches slug
    tags: spec.tags ?? check.tags,
    desc: spec.desc ?? check.desc,
    graceMs: spec.graceMs ?? check.graceMs,
    tz: spec.tz ?? check.tz, // stored even for a simple check: it reappears with a schedule
    manualResume: spec.manualResume ?? check.manualResume,
    methods: spec.methods ?? check.methods,
    startKw: spec.startKw ?? check.startKw,
    successKw: spec.successKw ?? check.successKw,
    failureKw: spec.failureKw ?? check.failureKw,
    filterSubject: spec.filterSubject ?? check.filterSubject,
    filterBody: spec.filterBody ?? check.filterBody,
    filterHttpBody: spec.filterHttpBody ?? check.filterHttpBody,
    filterDefaultFail: spec.filterDefaultFail ?? check.filterDefaultFail,
    channels: resolved.channelIds === undefined ? check.channels : [...new Set(resolved.channelIds)].sort(),
    failureThreshold: spec.failureThreshold === undefined ? check.failureThreshold : spec.failureThreshold,
    reminderIntervalMs: spec.reminderIntervalMs === undefined ? check.reminderIntervalMs : spec.reminderIntervalMs,
    mutedUntilAt: spec.mutedUntilAt === undefined ? check.mutedUntilAt : spec.mutedUntilAt,
    maxDurationMs: spec.maxDurationMs === undefined ? check.maxDurationMs : spec.maxDurationMs,
    dependsOn:
      spec.dependsOn === undefined ? check.dependsOn : spec.dependsOn.length === 0 ? undefined : [...new Set(spec.dependsOn)].sort(),
    pushToken: spec.pushToken === undefined ? check.pushToken : (spec.pushToken ?? undefined),
    minDurationMs: spec.minDurationMs === undefined ? check.minDurationMs : spec.minDurationMs,
    alertOnOverlap: spec.alertOnOverlap === undefined ? check.alertOnOverlap : spec.alertOnOverlap,
    maxRunsPerPeriod: spec.maxRunsPerPeriod === undefined ? check.maxRunsPerPeriod : spec.maxRunsPerPeriod,
    escalation: resolved.escalation === undefined ? check.escalation : (resolved.escalation ?? undefined),
  });
}

/** Sets the stored status to `to`, recording a flip when it changes. */
function flipTo(check: Check, change: { to: Status; at: Millis; reason: FlipReason }): Step {
  const from = check.status;
  if (from === change.to) return { check, flips: [] };
  const n = check.nFlips + 1;
  const flip: Flip = {
    checkUuid: check.uuid,
    n,
    at: change.at,
    from,
    to: change.to,
    reason: change.reason,
    notify: notifies(from, change.to),
  };
  return { check: checkWith(check, { status: change.to, nFlips: n }), flips: [flip] };
}

/** Only up and down notify, and not new→up or paused→up (fact sheet §5); pause and resume never do. */
function notifies(from: Status, to: Status): boolean {
  if (to === "down") return true;
  if (to === "up") return from !== "new" && from !== "paused";
  return false;
}
