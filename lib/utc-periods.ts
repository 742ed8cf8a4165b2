// Calendar periods in UTC: days, weeks (from Monday) and months, each with a label ("2026-03-09",
// "2026-03") and its start and end (exclusive), for reports and exports.

const DAY = 86_400_000;

export const PERIOD_UNITS = ["day", "week", "month"] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** A period: its label ("2026-03", "2026-03-09"), and its UTC start and end (exclusive), in epoch milliseconds. */
export type Period = { readonly label: string; readonly startAt: number; readonly endAt: number };

/** The UTC periods of `unit` that meet [fromAt, toAt), oldest first: whole periods (the last ends after toAt when toAt falls inside it). */
export function periodsBetween(unit: PeriodUnit, fromAt: number, toAt: number): Period[] {
  const periods: Period[] = [];
  for (let startAt = periodStartOf(unit, fromAt); startAt < toAt;) {
    const endAt = nextPeriodAt(unit, startAt);
    periods.push({ label: labelOf(unit, startAt), startAt, endAt });
    startAt = endAt;
  }
  return periods;
}

/** The start of the UTC period of `unit` holding `at`. */
export function periodStartOf(unit: PeriodUnit, at: number): number {
  const day = Math.floor(at / DAY) * DAY;
  if (unit === "day") return day;
  if (unit === "week") return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY; // Monday
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextPeriodAt(unit: PeriodUnit, startAt: number): number {
  if (unit === "day") return startAt + DAY;
  if (unit === "week") return startAt + 7 * DAY;
  const date = new Date(startAt);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

function labelOf(unit: PeriodUnit, startAt: number): string {
  return new Date(startAt).toISOString().slice(0, unit === "month" ? 7 : 10);
}

/** The period of `unit` that ended last at or before `at` (the one before the period holding `at`). */
export function lastEndedPeriod(unit: PeriodUnit, at: number): Period {
  const current = periodStartOf(unit, at);
  const startAt = periodStartOf(unit, current - 1);
  return { label: labelOf(unit, startAt), startAt, endAt: current };
}
