// Email reports' schedule (CONTRACT "Alerting, third part"): which period a user's weekly or monthly
// report covers, when it is due, and the claim that makes one node send it once. Each is an edit of the
// user's stored record (Accounts.updateUser: a file written whole on one node, compare-and-set in a
// cluster), so a restart or another node sees what was sent: a report is claimed before it is sent and
// marked done after; a claim older than CLAIM_STALE_MS (its node gone) is taken over, and its report sent
// again with the same Message-ID.
import type { StoredReports, StoredUser } from "../persistence/accounts-file.ts";
import type { Millis } from "../engine/model.ts";
import { MINUTE } from "../engine/model.ts";
import type { Period } from "../lib/utc-periods.ts";
import { lastEndedPeriod } from "../lib/utc-periods.ts";

export const REPORT_CHOICES = ["off", "weekly", "monthly"] as const;
export type ReportChoice = (typeof REPORT_CHOICES)[number];

/** How long a claim of another node holds before this one takes it over. */
export const CLAIM_STALE_MS = 10 * MINUTE;

/** The period a report `every` week or month covers when sent at `at`: the one that ended last. */
export function reportPeriodAt(every: StoredReports["every"], at: Millis): Period {
  return lastEndedPeriod(every === "weekly" ? "week" : "month", at);
}

/** The user's choice as shown ("off", "weekly", "monthly"). */
export function reportChoiceOf(user: StoredUser): ReportChoice {
  return user.reports?.every ?? "off";
}

/**
 * The user with reports `choice` from `at` on: the first report covers the first period to end after the
 * choice (none of the past is sent); the same choice again changes nothing (null).
 */
export function withReports(user: StoredUser, choice: ReportChoice, at: Millis): StoredUser | null {
  if (choice === reportChoiceOf(user)) return null;
  const { reports: _before, ...rest } = user;
  if (choice === "off") return rest;
  return { ...rest, reports: { every: choice, doneUpTo: reportPeriodAt(choice, at).label } };
}

/** The period whose report is due for the user at `at`, or null when none is (reports off, or the last ended one is done). */
export function dueReport(user: StoredUser, at: Millis): Period | null {
  const reports = user.reports;
  if (reports === undefined) return null;
  const period = reportPeriodAt(reports.every, at);
  return period.label > reports.doneUpTo ? period : null;
}

/**
 * The user with the report of `period` claimed by node `by` at `at`, or null when it may not be: done
 * already, or claimed by another node less than CLAIM_STALE_MS ago. A node's own claim (a send that failed,
 * or its process that stopped before marking it done) is its to send again.
 */
export function claimed(user: StoredUser, period: Period, by: string, at: Millis): StoredUser | null {
  const reports = user.reports;
  if (reports === undefined || period.label <= reports.doneUpTo) return null;
  const claim = reports.claim;
  if (claim !== undefined && claim.period === period.label && claim.by !== by && at - claim.at < CLAIM_STALE_MS) return null;
  return { ...user, reports: { ...reports, claim: { period: period.label, by, at } } };
}

/** The user with the report of `period` done (its claim gone), or null when it is done already or reports are off. */
export function completed(user: StoredUser, period: Period): StoredUser | null {
  const reports = user.reports;
  if (reports === undefined || period.label <= reports.doneUpTo) return null;
  return { ...user, reports: { every: reports.every, doneUpTo: period.label } };
}
