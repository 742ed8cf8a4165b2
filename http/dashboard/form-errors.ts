// The check form's errors in plain words: the API's failure (its terse "json validation error: grace is
// too small") becomes a sentence that names the field as the form labels it and the limit it broke
// ("Grace time must be between 1 minute and 365 days (60 to 31536000 seconds)").
import type { Millis, Project } from "../../engine/model.ts";
import { LIMITS, SECOND } from "../../engine/model.ts";
import type { Failure } from "../../engine/outcome.ts";
import { reasonOf } from "../errors.ts";
import { durationText } from "./format.ts";
import { cronFieldProblem } from "../../engine/cron.ts";
import { TIME_ZONE_RULE } from "./time-zones.ts";

/** "between 1 minute and 365 days (60 to 31536000 seconds)": a range of a field typed in seconds. */
function secondsRange(minMs: Millis, maxMs: Millis): string {
  return `between ${durationText(minMs)} and ${durationText(maxMs)} (${minMs / SECOND} to ${maxMs / SECOND} seconds)`;
}

/** Each field's rule, said whole: whatever was wrong with a value (not a number, too small, too large), this is what it must be. */
const RULES: Record<string, string> = {
  // typed as a number and a unit: the limits in words and in seconds, whatever the unit
  timeout: `Period must be a number ${secondsRange(LIMITS.timeoutMinMs, LIMITS.timeoutMaxMs)}.`,
  grace: `Grace time must be a number ${secondsRange(LIMITS.timeoutMinMs, LIMITS.timeoutMaxMs)}.`,
  methods: "Which HTTP requests count must be HEAD, GET and POST, or only POST.",
  failure_threshold: `Failures in a row must be a whole number from ${LIMITS.failureThresholdMin} to ${LIMITS.failureThresholdMax}.`,
  reminder_interval: `The reminder interval must be 0 (none), or ${secondsRange(LIMITS.reminderIntervalMinMs, LIMITS.reminderIntervalMaxMs)}.`,
  max_duration: `The run time limit must be 0 (off), or ${secondsRange(LIMITS.maxDurationMinMs, LIMITS.maxDurationMaxMs)}.`,
  min_duration: `The shortest run must be 0 (off), or up to ${durationText(LIMITS.minDurationMaxMs)} (a whole number of seconds, at most ${LIMITS.minDurationMaxMs / SECOND}).`,
  max_runs_per_period: `The most runs in one period must be 0 (off), or a whole number up to ${LIMITS.maxRunsPerPeriodMax}.`,
  muted_until: "Muted until must be a date and time like 2026-01-01T00:00:00Z (ISO 8601; UTC unless an offset is given), or empty.",
  tz: TIME_ZONE_RULE,
};

/** What a too-long or badly formed text field must be. */
const TEXT_RULES: Record<string, { label: string; maxChars: number; pattern?: string }> = {
  name: { label: "Name", maxChars: LIMITS.nameMaxChars },
  tags: { label: "Tags", maxChars: LIMITS.tagsMaxChars },
  slug: { label: "Slug", maxChars: LIMITS.slugMaxChars, pattern: "Slug may hold only lower-case letters (a-z), digits, _ and -." },
  start_kw: { label: "Start keywords", maxChars: LIMITS.keywordsMaxChars },
  success_kw: { label: "Success keywords", maxChars: LIMITS.keywordsMaxChars },
  failure_kw: { label: "Failure keywords", maxChars: LIMITS.keywordsMaxChars },
  schedule: {
    label: "The schedule",
    maxChars: LIMITS.scheduleMaxChars,
    pattern: "The schedule must be a cron expression of 5 fields (like 0 3 * * *) or an OnCalendar expression (like Mon *-*-* 03:00:00).",
  },
};

/**
 * The check form's error about `failure`, in plain words that name the limit; the API's own text for what
 * the form does not know. `typed`: the schedule as typed, for a cron expression's field that is wrong.
 */
export function plainFormError(failure: Failure, project: Pick<Project, "checkLimit">, typed?: { readonly schedule: string }): string {
  if (failure.code === "check_limit") {
    return `This project has reached its limit of ${project.checkLimit} check${project.checkLimit === 1 ? "" : "s"}: delete a check first, or ask an instance admin to raise the check limit (on the project's Manage page).`;
  }
  if (failure.code !== "invalid") return reasonOf(failure);
  if (failure.field === "schedule" && typed !== undefined && failure.reason.startsWith("is not a valid")) {
    const wrong = cronFieldProblem(typed.schedule); // five fields: a cron expression, one of whose fields is wrong
    if (wrong !== null)
      return `The cron expression's ${wrong.field} field is wrong: ${wrong.problem}. Its five fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12) and day of week (0-7, 0 and 7 are Sunday).`;
  }
  const rule = RULES[failure.field];
  if (rule !== undefined) return rule;
  const text = TEXT_RULES[failure.field];
  if (text !== undefined) {
    if (failure.reason === "is too long") return `${text.label} must be at most ${text.maxChars} characters.`;
    if (text.pattern !== undefined && (failure.reason === "does not match pattern" || failure.reason.startsWith("is not a valid")))
      return text.pattern;
  }
  if (failure.field === "depends_on") return `Depends on: ${failure.reason}.`;
  if (failure.field === "push_token") {
    return failure.reason === "is taken by another check"
      ? "Push token: another check has this token (a token pings one check)."
      : "Push token must be 10 to 128 letters, digits, - or _ (Uptime Kuma's are 32 letters and digits), or empty.";
  }
  if (failure.field === "escalation") {
    // each step's after is typed as a number and a unit: its limits in words and in seconds
    const after = failure.reason
      .replace("channels is not a non-empty string", "choose the integrations it notifies")
      .replace("after is not an integer", "type after how long it comes (a whole number of seconds in all)")
      .replace(
        /after is too (small \(60 and more\)|large)/,
        `it must come ${secondsRange(LIMITS.escalationAfterMinMs, LIMITS.escalationAfterMaxMs)}`,
      );
    return `Escalation: ${after}.`;
  }
  // a sentence of its own (the schedule kind's), or a field this form has no words for
  return failure.reason.startsWith("is ") ? reasonOf(failure) : failure.reason;
}
