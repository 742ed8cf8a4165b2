// The small marks next to a check's status word, in the checks table and on its page: what alerting does
// to its notices now (muted, acknowledged, held by a dependency, escalated) and a failure threshold partly reached
// ("2 of 3 failures": still up, one more failure makes it down).
import type { Check, Millis, Project } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import { timeHtml } from "./time-html.ts";

export const MARK_KINDS = ["muted", "failures", "acknowledged", "held", "escalated"] as const;
export type MarkKind = (typeof MARK_KINDS)[number];
/** One mark: its kind (its CSS class, mark-<kind>) and its words. */
export type Mark = { readonly kind: MarkKind; readonly text: string };

/** The marks of `check` at `at`, in a fixed order; `nameOf` names the dependency holding it. */
export function checkMarksOf(check: Check, opts: { at: Millis; nameOf: (uuid: string) => string | undefined }): readonly Mark[] {
  const marks: Mark[] = [];
  const mutedUntil = check.mutedUntilAt ?? null;
  if (mutedUntil !== null && mutedUntil > opts.at) marks.push({ kind: "muted", text: "muted" });
  const threshold = check.failureThreshold ?? 1;
  const failures = check.alert?.failures ?? 0;
  if (threshold > 1 && failures > 0 && failures < threshold) marks.push({ kind: "failures", text: `${failures} of ${threshold} failures` });
  if (check.alert?.acknowledged !== undefined) marks.push({ kind: "acknowledged", text: "acknowledged" });
  const escalated = check.alert?.escalated ?? 0;
  if (escalated > 0) marks.push({ kind: "escalated", text: `escalated (step ${escalated})` });
  const heldBy = check.alert?.heldBy;
  if (heldBy !== undefined) {
    const name = opts.nameOf(heldBy);
    marks.push({ kind: "held", text: `held by ${name === undefined ? "a check no longer here" : name === "" ? "(unnamed)" : name}` });
  }
  return marks;
}

/** The first instant after `at` at which time alone changes the marks of `check` (its mute ends); Infinity when none does. */
export function marksChangeAt(check: Check, at: Millis): Millis {
  const mutedUntil = check.mutedUntilAt ?? null;
  return mutedUntil !== null && mutedUntil > at ? mutedUntil : Infinity;
}

/** The key of what the marks show (a row is built again when it changes). */
export function marksKey(marks: readonly Mark[]): string {
  return marks.map((mark) => mark.text).join("|");
}

export function marksHtml(marks: readonly Mark[]): Html {
  return html`${marks.map((mark) => html` <span class="mark mark-${mark.kind}">${mark.text}</span>`)}`;
}

/** A line saying that the project's maintenance mute holds every check's notifications; nothing when it is not muted at `at`. */
export function projectMuteLine(project: Project, at: Millis): Html | "" {
  const until = project.mutedUntilAt ?? null;
  if (until === null || until <= at) return "";
  return html`<p class="mark-line project-muted"><span class="mark mark-muted">muted</span> Notifications of every check of this project are muted until ${timeHtml(until)} (maintenance mute).</p>`;
}
