// The file `hcd apply` reads and `hcd export` writes, as typed data once it has passed the schema
// (file-schema.ts): what each entry holds, and the defaults of a check's settings that are left out.
import { isoInstantOf } from "../../http/field-input.ts";

export type FileChannel = {
  readonly id?: string;
  readonly name: string;
  readonly kind: string;
  /** Whether new checks (and checks a ping creates) get it; absent: yes. */
  readonly new_checks?: boolean;
  /** Whether it is told of every failure while a check is down, not only of the change; absent: no. */
  readonly every_failure?: boolean;
  /** What the kind takes; absent only with `needs_settings`. */
  readonly value?: unknown;
  /** A channel whose settings the file does not know (one brought over as a stub): made a stub, its settings here left alone. */
  readonly needs_settings?: true;
};

export type FileCheck = {
  readonly uuid?: string;
  readonly slug?: string;
  readonly name?: string;
  readonly tags?: readonly string[] | string;
  readonly desc?: string;
  readonly timeout?: number;
  readonly grace?: number;
  readonly schedule?: string;
  readonly tz?: string;
  readonly manual_resume?: boolean;
  readonly methods?: "" | "POST";
  readonly start_kw?: string;
  readonly success_kw?: string;
  readonly failure_kw?: string;
  readonly filter_subject?: boolean;
  readonly filter_body?: boolean;
  readonly filter_http_body?: boolean;
  readonly filter_default_fail?: boolean;
  readonly failure_threshold?: number;
  readonly reminder_interval?: number;
  readonly max_duration?: number;
  readonly muted_until?: string | null;
  readonly depends_on?: readonly string[];
  readonly channels?: readonly string[];
  readonly push_token?: string | null;
  readonly min_duration?: number;
  readonly alert_on_overlap?: boolean;
  readonly max_runs_per_period?: number;
  /** The check's own escalation policy ([] = none); absent or null: its project's. */
  readonly escalation?: readonly FileEscalationStep[] | null;
};

/** A step of an escalation policy: after so many seconds down and not acknowledged, these channels (names or ids) too. */
export type FileEscalationStep = { readonly after: number; readonly channels: readonly string[] };

export type FileStatusPage = {
  readonly slug: string;
  readonly title: string;
  /** Absent: the server's is left as it is ("" takes it away). */
  readonly description?: string;
  /** An https address of an image above the title; absent: the server's is left as it is ("" takes it away). */
  readonly logo?: string;
  readonly checks: readonly string[];
  /** Headings over some of `checks`, each check in one at most; absent: the server's are left as they are ([] takes them away). */
  readonly groups?: readonly FileStatusGroup[];
};
export type FileStatusGroup = { readonly name: string; readonly checks: readonly string[] };

export type FileMaintenance = {
  readonly id?: string;
  readonly name: string;
  readonly schedule: string;
  readonly tz?: string;
  readonly duration: number;
};

export type FileProject = {
  readonly id?: string;
  readonly name: string;
  readonly check_limit?: number;
  readonly ping_log_limit?: number;
  readonly ping_body_limit?: number;
  /** The escalation policy of the project's checks without their own ([] = none); absent: left as it is. */
  readonly escalation?: readonly FileEscalationStep[];
  /** A section left out is not managed: nothing in it is created, changed or deleted. */
  readonly channels?: readonly FileChannel[];
  readonly checks?: readonly FileCheck[];
  readonly status_pages?: readonly FileStatusPage[];
  readonly maintenance?: readonly FileMaintenance[];
};

export type HcdFile = { readonly version?: 1; readonly projects: readonly FileProject[] };

/**
 * A check's settings as the file and the comparison see them, every one present: those the file leaves
 * out take these values (the API's defaults for a new check).
 */
export type CheckSettings = {
  readonly name: string;
  readonly slug: string;
  readonly tags: readonly string[];
  readonly desc: string;
  readonly timeout: number | null; // null: the check has a schedule
  readonly schedule: string | null;
  readonly tz: string | null; // the schedule's zone; null for a simple check
  readonly grace: number;
  readonly manual_resume: boolean;
  readonly methods: string;
  readonly start_kw: string;
  readonly success_kw: string;
  readonly failure_kw: string;
  readonly filter_subject: boolean;
  readonly filter_body: boolean;
  readonly filter_http_body: boolean;
  readonly filter_default_fail: boolean;
  readonly failure_threshold: number;
  readonly reminder_interval: number;
  readonly max_duration: number;
  readonly muted_until: string | null; // ISO 8601 to the second, UTC ("...Z"), or null
  readonly push_token: string | null; // an Uptime Kuma push token, or null
  readonly min_duration: number;
  readonly alert_on_overlap: boolean;
  readonly max_runs_per_period: number;
};

export const CHECK_DEFAULTS = {
  name: "",
  slug: "",
  tags: [],
  desc: "",
  timeout: 86_400,
  schedule: null,
  tz: null,
  grace: 3_600,
  manual_resume: false,
  methods: "",
  start_kw: "",
  success_kw: "",
  failure_kw: "",
  filter_subject: false,
  filter_body: false,
  filter_http_body: false,
  filter_default_fail: false,
  failure_threshold: 1,
  reminder_interval: 0,
  max_duration: 0,
  muted_until: null,
  push_token: null,
  min_duration: 0,
  alert_on_overlap: false,
  max_runs_per_period: 0,
} as const satisfies CheckSettings;

/** The settings' names, in the order files and plans show them. */
export const CHECK_SETTING_NAMES = Object.keys(CHECK_DEFAULTS) as (keyof CheckSettings)[];

/** A check's tags as a list, however the file wrote them. */
export function tagList(tags: readonly string[] | string | undefined): string[] {
  if (tags === undefined) return [];
  return (typeof tags === "string" ? tags.split(" ") : [...tags]).map((t) => t.trim()).filter((t) => t !== "");
}

/** An ISO 8601 instant as the comparison holds it: UTC to the second ("2026-01-01T00:00:00Z"); null when it is not one (the API's reading). */
export function isoSecond(text: string): string | null {
  const at = isoInstantOf(text);
  return at === null ? null : new Date(Math.floor(at / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** The settings a file's check asks for, its left-out ones at their defaults. */
export function settingsOfFile(check: FileCheck): CheckSettings {
  const scheduled = check.schedule !== undefined;
  return {
    name: check.name ?? CHECK_DEFAULTS.name,
    slug: check.slug ?? CHECK_DEFAULTS.slug,
    tags: tagList(check.tags),
    desc: check.desc ?? CHECK_DEFAULTS.desc,
    timeout: scheduled ? null : (check.timeout ?? CHECK_DEFAULTS.timeout),
    schedule: check.schedule ?? null,
    tz: scheduled ? (check.tz ?? "UTC") : null,
    grace: check.grace ?? CHECK_DEFAULTS.grace,
    manual_resume: check.manual_resume ?? CHECK_DEFAULTS.manual_resume,
    methods: check.methods ?? CHECK_DEFAULTS.methods,
    start_kw: check.start_kw ?? CHECK_DEFAULTS.start_kw,
    success_kw: check.success_kw ?? CHECK_DEFAULTS.success_kw,
    failure_kw: check.failure_kw ?? CHECK_DEFAULTS.failure_kw,
    filter_subject: check.filter_subject ?? CHECK_DEFAULTS.filter_subject,
    filter_body: check.filter_body ?? CHECK_DEFAULTS.filter_body,
    filter_http_body: check.filter_http_body ?? CHECK_DEFAULTS.filter_http_body,
    filter_default_fail: check.filter_default_fail ?? CHECK_DEFAULTS.filter_default_fail,
    failure_threshold: check.failure_threshold ?? CHECK_DEFAULTS.failure_threshold,
    reminder_interval: check.reminder_interval ?? CHECK_DEFAULTS.reminder_interval,
    max_duration: check.max_duration ?? CHECK_DEFAULTS.max_duration,
    muted_until: check.muted_until === undefined || check.muted_until === null ? null : isoSecond(check.muted_until),
    push_token: check.push_token === undefined || check.push_token === "" ? null : check.push_token,
    min_duration: check.min_duration ?? CHECK_DEFAULTS.min_duration,
    alert_on_overlap: check.alert_on_overlap ?? CHECK_DEFAULTS.alert_on_overlap,
    max_runs_per_period: check.max_runs_per_period ?? CHECK_DEFAULTS.max_runs_per_period,
  };
}
