// The admin API request bodies an apply file's entries become: every setting of a check written out, its
// left-out ones at their defaults (the file says the whole of what it manages), references already resolved
// to ids by the caller.
import type { FileChannel, FileCheck, FileMaintenance, FileStatusPage } from "./document.ts";
import { settingsOfFile } from "./document.ts";

/** The body that creates or edits a check as the file has it; `channels` and `dependsOn` are ids and uuids. */
export function checkBody(
  check: FileCheck,
  resolved: { channels: readonly string[]; dependsOn: readonly string[]; escalation: ResolvedSteps | null },
): Record<string, unknown> {
  const s = settingsOfFile(check);
  const body: Record<string, unknown> = {
    name: s.name,
    slug: s.slug,
    tags: s.tags.join(" "),
    desc: s.desc,
    grace: s.grace,
    manual_resume: s.manual_resume,
    methods: s.methods,
    start_kw: s.start_kw,
    success_kw: s.success_kw,
    failure_kw: s.failure_kw,
    filter_subject: s.filter_subject,
    filter_body: s.filter_body,
    filter_http_body: s.filter_http_body,
    filter_default_fail: s.filter_default_fail,
    failure_threshold: s.failure_threshold,
    reminder_interval: s.reminder_interval,
    max_duration: s.max_duration,
    muted_until: check.muted_until ?? null, // as written: the server reads it
    push_token: s.push_token,
    min_duration: s.min_duration,
    alert_on_overlap: s.alert_on_overlap,
    max_runs_per_period: s.max_runs_per_period,
    escalation: resolved.escalation === null ? null : stepsBody(resolved.escalation), // null: the project's policy
    depends_on: [...resolved.dependsOn].join(","),
    channels: [...resolved.channels].join(","),
  };
  if (s.schedule === null) body.timeout = s.timeout;
  else Object.assign(body, { schedule: s.schedule, tz: s.tz });
  return body;
}

/** An escalation policy's steps with their channels resolved to ids. */
export type ResolvedSteps = readonly { readonly after: number; readonly channels: readonly string[] }[];

/** The steps as the API takes them (a check's `escalation`, a project's policy). */
export function stepsBody(steps: ResolvedSteps): Record<string, unknown>[] {
  return steps.map((step) => ({ after: step.after, channels: [...step.channels].join(",") }));
}

/** The body that adds a channel (or edits one: its kind stays); a group's members already ids. */
export function channelBody(channel: FileChannel, memberIds: readonly string[] | null): Record<string, unknown> {
  const options = { new_checks: channel.new_checks ?? true, every_failure: channel.every_failure ?? false };
  if (channel.needs_settings === true) return { kind: channel.kind, name: channel.name, ...options, needs_settings: true };
  const value = channel.kind === "group" ? { channels: [...(memberIds ?? [])] } : channel.value;
  return { kind: channel.kind, name: channel.name, ...options, value };
}

export function maintenanceBody(window: FileMaintenance): Record<string, unknown> {
  return { name: window.name, schedule: window.schedule, tz: window.tz ?? "UTC", duration: window.duration };
}

/** `checks` and `groups`: with the uuids the page's references name; the description, logo and groups only when the file names them. */
export function statusPageBody(
  page: FileStatusPage,
  checks: readonly string[],
  groups: readonly { name: string; checks: readonly string[] }[] | undefined,
): Record<string, unknown> {
  return {
    slug: page.slug,
    title: page.title,
    ...(page.description === undefined ? {} : { description: page.description }),
    ...(page.logo === undefined ? {} : { logo: page.logo }),
    checks: [...checks],
    ...(groups === undefined ? {} : { groups }),
  };
}
