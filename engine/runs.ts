// The run rules beyond the reference (CONTRACT "Alerting, third part"): a run that ended too fast
// (min_duration), runs that overlap (a start, or another run's success, while a run is open; alert_on_overlap),
// and more runs in one period than max_runs_per_period. Pure: a ping is judged from the check before it.
import type { Check, FlipReason, Millis, PingNote, RunPeriod } from "./model.ts";
import { nextAfter } from "./schedule.ts";

/** What a notification of a failure by a run rule says of it (notify/facts.ts words it). */
export type RunFacts =
  | { readonly rule: "too_fast"; readonly durationMs: Millis; readonly minDurationMs: Millis }
  | { readonly rule: "too_often"; readonly runs: number; readonly maxRuns: number }
  | { readonly rule: "overlap"; readonly openSinceAt: Millis };

/**
 * What the run rules make of a start or success signal: the ping's note, the failure it counts as (null:
 * none) with its facts, and the period's count after it.
 */
export type RunJudgement = {
  readonly note: PingNote | null;
  readonly failure: FlipReason | null;
  readonly facts: RunFacts | null;
  readonly period: RunPeriod | undefined;
};

/** A start signal: while a run is open it is an overlap, a failure under alert_on_overlap. */
export function judgeStart(check: Check): RunJudgement {
  const open = check.lastStartAt,
    period = check.alert?.period;
  if (open === null) return { note: null, failure: null, facts: null, period };
  if (check.alertOnOverlap !== true) return { note: "overlap", failure: null, facts: null, period };
  return { note: "overlap", failure: "overlap", facts: { rule: "overlap", openSinceAt: open }, period };
}

/**
 * A success signal with run id `rid` at `at`: too fast when it ends its open run sooner than min_duration
 * after the run's start; an overlap when it is another run's (its rid differs from the open run's); too
 * often when it is the period's (max_runs_per_period + 1)-th success or later. The note names the first of
 * too_fast, too_often and overlap that holds; the failure the first that counts as one.
 */
export function judgeSuccess(check: Check, rid: string | null, at: Millis): RunJudgement {
  const max = check.maxRunsPerPeriod ?? 0;
  const period = max > 0 ? countRun(check, at) : undefined;
  const often: RunFacts | null = period !== undefined && period.runs > max ? { rule: "too_often", runs: period.runs, maxRuns: max } : null;
  const open = check.lastStartAt;
  if (open === null)
    return often === null
      ? { note: null, failure: null, facts: null, period }
      : { note: "too_often", failure: "too_often", facts: often, period };
  const paired = check.lastStartRid === rid; // two missing rids pair too (transition.ts)
  const minMs = check.minDurationMs ?? 0; // 0: no run is shorter
  if (paired && at - open < minMs)
    return { note: "too_fast", failure: "too_fast", facts: { rule: "too_fast", durationMs: at - open, minDurationMs: minMs }, period };
  if (often !== null) return { note: "too_often", failure: "too_often", facts: often, period };
  if (paired || rid === null) return { note: null, failure: null, facts: null, period }; // the run's own end, or a success that ends any run
  // another run's success while this one is open: an overlap
  if (check.alertOnOverlap !== true) return { note: "overlap", failure: null, facts: null, period };
  return { note: "overlap", failure: "overlap", facts: { rule: "overlap", openSinceAt: open }, period };
}

/**
 * The period a success at `at` counts in: the current one while `at` is before its end, else a new one
 * starting with it. Returns undefined when the check's schedule never fires again (nothing is counted).
 */
export function countRun(check: Check, at: Millis): RunPeriod | undefined {
  const current = check.alert?.period;
  if (current !== undefined && at < current.endAt) return { endAt: current.endAt, runs: current.runs + 1 };
  const endAt = periodEndAt(check, at);
  return endAt === null ? undefined : { endAt, runs: 1 };
}

/**
 * The end of a period that begins with a success at `at`: for a cron or OnCalendar check, its schedule's
 * next instant (a period is the time between two scheduled runs); for a simple check, the timeout less
 * the grace, and never less than half the timeout (a run up to its grace early starts a new period).
 */
export function periodEndAt(check: Check, at: Millis): Millis | null {
  if (check.kind === "simple") return at + check.timeoutMs - Math.min(check.graceMs, check.timeoutMs / 2);
  return nextAfter(check.schedule, check.tz, at);
}
