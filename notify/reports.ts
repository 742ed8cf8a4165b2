// The weekly or monthly email report of a user (CONTRACT "Alerting, third part"), as the reference words
// its report: a summary of the period ("In January, 2 checks had 3 downtime events."), then each of the
// user's projects with its checks, their status now and their downtime in the period and the one before
// ("2 downtimes, 3 hours total", "All good!", nothing before a check existed), and the time hcd did not
// watch (unknown) when there was any. Text and HTML, user text escaped in the HTML. Pure.
import type { PeriodDowntime } from "../engine/downtime-periods.ts";
import { escapeHtml } from "../lib/html.ts";
import type { Period } from "../lib/utc-periods.ts";
import type { EmailMessage } from "./delivery.ts";
import { formatDowntime } from "./wording.ts";

/** One check of a report: its name, status word now, and its figures in each of the report's periods (null: it did not exist yet). */
export type ReportCheck = { readonly name: string; readonly status: string; readonly periods: readonly (PeriodDowntime | null)[] };
export type ReportProject = { readonly name: string; readonly checks: readonly ReportCheck[] };

export type Report = {
  readonly to: string;
  readonly every: "weekly" | "monthly";
  /** The periods shown, oldest first; the last is the one reported. */
  readonly periods: readonly Period[];
  readonly projects: readonly ReportProject[];
  readonly siteRoot: string;
  readonly siteName: string;
  /** The message's id: the same for every send of one user's report of one period (a resend is the same message). */
  readonly messageId: string;
};

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "In January" / "Last week (March 2 to March 8)". */
function whenText(report: Report): string {
  const last = report.periods[report.periods.length - 1];
  const start = new Date(last.startAt),
    end = new Date(last.endAt - 1);
  if (report.every === "monthly") return `In ${MONTHS[start.getUTCMonth()]}`;
  return `Last week (${MONTHS[start.getUTCMonth()]} ${start.getUTCDate()} to ${MONTHS[end.getUTCMonth()]} ${end.getUTCDate()})`;
}

/** A period's column heading: "Jan 2026" / "Mar 2 - Mar 8". */
function headingOf(report: Report, period: Period): string {
  const start = new Date(period.startAt),
    end = new Date(period.endAt - 1);
  const short = (d: Date) => `${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCDate()}`;
  return report.every === "monthly"
    ? `${MONTHS[start.getUTCMonth()].slice(0, 3)} ${start.getUTCFullYear()}`
    : `${short(start)} - ${short(end)}`;
}

/** A check's cell for one period: its downtimes and their total, "All good!", or nothing before it existed; unknown time after. */
function cellText(figures: PeriodDowntime | null): string {
  if (figures === null) return "";
  const down =
    figures.incidents === 0
      ? "All good!"
      : `${figures.incidents} downtime${figures.incidents === 1 ? "" : "s"}, ${formatDowntime(figures.downMs)} total`;
  return figures.unknownMs === 0 ? down : `${down} (unknown for ${formatDowntime(figures.unknownMs)}: hcd was not watching)`;
}

/** Returns the report as an email (the caller sends it with its Message-ID and List-Unsubscribe headers). */
export function renderReport(
  report: Report,
): EmailMessage & { readonly headers: Readonly<Record<string, string>>; readonly messageId: string } {
  const last = report.periods.length - 1;
  let nChecks = 0,
    nTimes = 0;
  for (const project of report.projects) {
    for (const check of project.checks) {
      const incidents = check.periods[last]?.incidents ?? 0;
      if (incidents > 0) {
        nChecks++;
        nTimes += incidents;
      }
    }
  }
  const when = whenText(report);
  const summary =
    nChecks === 0
      ? `${when}, no checks had downtimes. Nice!`
      : `${when}, ${nChecks} check${nChecks === 1 ? "" : "s"} had ${nTimes} downtime event${nTimes === 1 ? "" : "s"}.`;
  const accountUrl = `${report.siteRoot}/account`;
  const sorted = report.projects.map((project) => ({
    ...project,
    checks: [...project.checks].sort(
      (a, b) => (b.periods[last]?.downMs ?? 0) - (a.periods[last]?.downMs ?? 0) || a.name.localeCompare(b.name),
    ),
  }));
  const headings = report.periods.map((period) => headingOf(report, period));
  const status = (word: string) => (word === "down" ? "DOWN" : word);

  const text = ["Hello,", "", summary, ""];
  for (const project of sorted) {
    text.push(`Project "${project.name}"`, "");
    for (const check of project.checks) {
      text.push(`${status(check.status)}  ${check.name === "" ? "(unnamed)" : check.name}`);
      check.periods.forEach((figures, i) => {
        if (figures !== null) text.push(`    ${headings[i]}: ${cellText(figures)}`);
      });
    }
    text.push("");
  }
  text.push(
    `You get this report ${report.every === "weekly" ? "every week" : "every month"}; change that on your account page: ${accountUrl}`,
    "",
    "--",
    `Cheers,`,
    report.siteName,
  );

  const e = escapeHtml;
  const html = [`<!DOCTYPE html>`, `<p>Hello,</p>`, `<p>${e(summary)}</p>`];
  for (const project of sorted) {
    html.push(
      `<h3>${e(project.name)}</h3>`,
      `<table cellpadding="6" cellspacing="0"><tr><th>Status</th><th>Check</th>${headings.map((h) => `<th>${e(h)}</th>`).join("")}</tr>`,
    );
    for (const check of project.checks) {
      html.push(
        `<tr><td>${e(status(check.status))}</td><td>${check.name === "" ? "<i>unnamed</i>" : e(check.name)}</td>${check.periods.map((figures) => `<td>${e(cellText(figures))}</td>`).join("")}</tr>`,
      );
    }
    html.push("</table>");
  }
  html.push(
    `<p style="color: #666666">You get this report ${report.every === "weekly" ? "every week" : "every month"}; <a href="${e(accountUrl)}">change that on your account page</a>.<br>&mdash;<br>${e(report.siteName)}</p>`,
  );
  return {
    kind: "email",
    to: report.to,
    subject: report.every === "weekly" ? "Weekly Report" : "Monthly Report",
    text: text.join("\n") + "\n",
    html: html.join("\n") + "\n",
    messageId: report.messageId,
    headers: { "List-Unsubscribe": `<${accountUrl}>` },
  };
}
