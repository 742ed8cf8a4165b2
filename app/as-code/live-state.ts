// What hcd holds now, read through the admin API (never the store): projects with their channels (values
// included), checks, status pages and maintenance windows, in the shapes the API answers. `hcd export`
// writes it out; `hcd apply` compares the file with it.
import type { AdminClient } from "../admin-client.ts";
import { call } from "../admin-client.ts";
import type { CheckSettings } from "./document.ts";
import { isoSecond, tagList } from "./document.ts";

export type LiveProject = {
  readonly id: string;
  readonly name: string;
  readonly check_limit: number;
  readonly ping_log_limit: number;
  readonly ping_body_limit: number;
};
/** A channel with its value; a stub brought over without its settings has `needs_settings` and no value. */
export type LiveChannel = {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly new_checks?: boolean;
  readonly every_failure?: boolean;
  readonly value?: unknown;
  readonly needs_settings?: true;
};
/** A check as the admin API shows it (host/check-json.ts, read-write view). */
export type LiveCheck = Readonly<Record<string, unknown>> & { readonly uuid: string; readonly slug: string; readonly name: string };
export type LiveStatusPage = {
  readonly slug: string;
  readonly title: string;
  readonly description?: string;
  readonly logo?: string;
  readonly checks: readonly string[];
  readonly groups?: readonly { readonly name: string; readonly checks: readonly string[] }[];
};
/** A step of an escalation policy as the API shows it: `channels` the ids, comma-separated. */
export type LiveEscalationStep = { readonly after: number; readonly channels: string };
export type LiveMaintenance = {
  readonly id: string;
  readonly name: string;
  readonly schedule: string;
  readonly tz: string;
  readonly duration: number;
};

export type LiveProjectState = {
  readonly project: LiveProject;
  readonly channels: readonly LiveChannel[];
  readonly checks: readonly LiveCheck[];
  readonly statusPages: readonly LiveStatusPage[];
  readonly maintenance: readonly LiveMaintenance[];
  /** The project's escalation policy ([] = none). */
  readonly escalation: readonly LiveEscalationStep[];
};

const enc = encodeURIComponent;

export async function listProjects(client: AdminClient): Promise<LiveProject[]> {
  return ((await call(client, "GET", "/admin/v1/projects")) as { projects: LiveProject[] }).projects;
}

/** Everything of one project. */
export async function readProject(client: AdminClient, project: LiveProject): Promise<LiveProjectState> {
  const base = `/admin/v1/projects/${enc(project.id)}`;
  const listed = ((await call(client, "GET", `${base}/channels`)) as { channels: { id: string }[] }).channels;
  const channels: LiveChannel[] = [];
  for (const { id } of listed) channels.push((await call(client, "GET", `${base}/channels/${enc(id)}`)) as LiveChannel);
  const checks = ((await call(client, "GET", `${base}/checks`)) as { checks: LiveCheck[] }).checks;
  const statusPages = ((await call(client, "GET", `${base}/status-pages`)) as { status_pages: LiveStatusPage[] }).status_pages;
  const maintenance = ((await call(client, "GET", `${base}/maintenance`)) as { maintenance: LiveMaintenance[] }).maintenance;
  const escalation = ((await call(client, "GET", `${base}/escalation`)) as { escalation: LiveEscalationStep[] }).escalation;
  return { project, channels, checks, statusPages, maintenance, escalation };
}

/** A live check's settings as the comparison holds them (document.ts CheckSettings). */
export function settingsOfLive(check: LiveCheck): CheckSettings {
  const scheduled = typeof check.schedule === "string";
  const text = (field: string) => (typeof check[field] === "string" ? check[field] : "");
  const flag = (field: string) => check[field] === true;
  const int = (field: string, fallback: number) => (typeof check[field] === "number" ? check[field] : fallback);
  return {
    name: check.name,
    slug: check.slug,
    tags: tagList(text("tags")),
    desc: text("desc"),
    timeout: scheduled ? null : int("timeout", 86_400),
    schedule: scheduled ? text("schedule") : null,
    tz: scheduled ? text("tz") : null,
    grace: int("grace", 3_600),
    manual_resume: flag("manual_resume"),
    methods: text("methods"),
    start_kw: text("start_kw"),
    success_kw: text("success_kw"),
    failure_kw: text("failure_kw"),
    filter_subject: flag("filter_subject"),
    filter_body: flag("filter_body"),
    filter_http_body: flag("filter_http_body"),
    filter_default_fail: flag("filter_default_fail"),
    failure_threshold: int("failure_threshold", 1),
    reminder_interval: int("reminder_interval", 0),
    max_duration: int("max_duration", 0),
    muted_until: typeof check.muted_until === "string" ? isoSecond(check.muted_until) : null,
    push_token: typeof check.push_token === "string" ? check.push_token : null,
    min_duration: int("min_duration", 0),
    alert_on_overlap: flag("alert_on_overlap"),
    max_runs_per_period: int("max_runs_per_period", 0),
  };
}

/** A check's own escalation policy as the API shows it; null: its project's. */
export function escalationOfLive(check: LiveCheck): LiveEscalationStep[] | null {
  return Array.isArray(check.escalation) ? (check.escalation as LiveEscalationStep[]) : null;
}

/** A comma-separated list of the API ("" = none) as ids. */
export function idsOf(value: unknown): string[] {
  return typeof value === "string" ? value.split(",").filter((id) => id !== "") : [];
}
