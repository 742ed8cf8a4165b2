// The JSON Schema of the file `hcd apply -f` reads and `hcd export` writes (draft-07, which editors'
// YAML support completes from): published as docs/hcd-apply.schema.json and printed by `hcd schema`.
// Each kind's value is described from what its parser takes: the first five here, the others from their
// dashboard forms (notify/kinds/), so a new kind appears with its module.
import { CHANNEL_KINDS, LIMITS } from "../../engine/model.ts";
import type { ServiceKind } from "../../engine/model.ts";
import { SERVICE_KIND_MODULES } from "../../notify/kinds/index.ts";
import { MAX_LOGO_URL, MAX_STATUS_CHECKS, MAX_STATUS_DESCRIPTION, MAX_STATUS_GROUPS } from "../../http/status/status-page-input.ts";

type Schema = Record<string, unknown>;

const UUID = { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" };
const HTTP_URL = { type: "string", pattern: "^https?://[^\\s/]+" };
const s = (ms: number) => ms / 1000;
const text = (max: number, description: string): Schema => ({ type: "string", maxLength: max, description });
const seconds = (min: number, max: number, description: string): Schema => ({
  type: "integer",
  minimum: s(min),
  maximum: s(max),
  description,
});
const zeroOr = (min: number, max: number, description: string): Schema => ({
  type: "integer",
  anyOf: [{ const: 0 }, { minimum: s(min), maximum: s(max) }],
  description,
});

const WEBHOOK_DIRECTION = (direction: "down" | "up"): Schema => ({
  [`method_${direction}`]: { type: "string", pattern: "^(?:[Gg][Ee][Tt]|[Pp][Oo][Ss][Tt]|[Pp][Uu][Tt])$", description: "GET, POST or PUT" },
  [`url_${direction}`]: {
    type: "string",
    anyOf: [{ const: "" }, HTTP_URL],
    description: `the request's URL when the check goes ${direction}; "" = none`,
  },
  [`body_${direction}`]: { type: "string" },
  [`headers_${direction}`]: { type: "object", additionalProperties: { type: "string" }, description: "header name: value" },
});

/** The value each of the first five kinds takes (http/admin-input.ts). */
const FIRST_KINDS: Readonly<Record<string, Schema>> = {
  email: { type: "string", pattern: "^[^\\s@]+@[^\\s@]+$", description: "the address" },
  slack: { ...HTTP_URL, description: "the incoming-webhook URL" },
  discord: { ...HTTP_URL, description: "the incoming-webhook URL" },
  webhook: {
    description: "a URL (POST the check's JSON on every up and down change), or the request of each direction",
    anyOf: [
      HTTP_URL,
      { type: "object", additionalProperties: false, properties: { ...WEBHOOK_DIRECTION("down"), ...WEBHOOK_DIRECTION("up") } },
    ],
  },
  ntfy: {
    description: "a topic URL, or the server and topic",
    anyOf: [
      HTTP_URL,
      {
        type: "object",
        additionalProperties: false,
        required: ["url", "topic"],
        properties: {
          url: HTTP_URL,
          topic: { type: "string", pattern: "^[^/]+$" },
          token: { type: "string", description: "sent as Authorization: Bearer" },
          priority_down: { type: "integer", minimum: 0, maximum: 5 },
          priority_up: { type: "integer", minimum: 0, maximum: 5 },
        },
      },
    ],
  },
  group: {
    type: "object",
    additionalProperties: false,
    required: ["channels"],
    properties: {
      channels: {
        type: "array",
        minItems: 1,
        items: { type: "string" },
        description: "names (or ids) of the project's other channels, not groups",
      },
    },
  },
};

/** A kind beyond the first five: an object of its form's fields (notify/kinds/<kind>.ts). */
function serviceValue(kind: ServiceKind): Schema {
  const module = SERVICE_KIND_MODULES[kind];
  const properties: Record<string, Schema> = {};
  for (const field of module.form) {
    const types =
      field.input === "bool"
        ? ["boolean"]
        : field.input === "number"
          ? ["integer"]
          : field.input === "list"
            ? ["array", "string"]
            : ["string", "number"];
    const property: Schema = {
      type: field.required ? types : [...types, "null"],
      description: field.hint === undefined ? field.label : `${field.label}: ${field.hint}`,
    };
    if (field.input === "list") property.items = { type: "string" };
    properties[field.name] = property;
  }
  return {
    type: "object",
    additionalProperties: false,
    required: module.form.filter((f) => f.required).map((f) => f.name),
    properties,
    description: module.help,
  };
}

function valueOf(kind: string): Schema {
  return FIRST_KINDS[kind] ?? serviceValue(kind as ServiceKind);
}

const CHANNEL: Schema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "kind"],
  properties: {
    id: { ...UUID, description: "the channel's id, when it has one here (an exported file names it); else it is matched by name" },
    name: {
      type: "string",
      maxLength: LIMITS.nameMaxChars,
      description: "unique in the project: checks name their channels by it (an entry without id needs one)",
    },
    kind: { enum: [...CHANNEL_KINDS] },
    new_checks: { type: "boolean", description: "new checks (and checks a ping creates) get it; default true" },
    every_failure: { type: "boolean", description: "told of every failure while a check is down, not only of the change; default false" },
    value: { description: "what the kind takes; write a secret as ${NAME}, read from the environment" },
    needs_settings: {
      const: true,
      description: "instead of value: the file does not know the settings (a stub brought over); they are left as they are here",
    },
  },
  allOf: CHANNEL_KINDS.map((kind) => ({
    if: { properties: { kind: { const: kind } }, required: ["kind"] },
    then: { properties: { value: valueOf(kind) } },
  })),
};

/** An escalation policy: at most two steps, each later than the one before (the server checks the order). */
const ESCALATION: Schema = {
  type: "array",
  maxItems: LIMITS.escalationStepsMax,
  items: {
    type: "object",
    additionalProperties: false,
    required: ["after", "channels"],
    properties: {
      after: seconds(
        LIMITS.escalationAfterMinMs,
        LIMITS.escalationAfterMaxMs,
        "seconds down and not acknowledged before this step notifies",
      ),
      channels: {
        type: "array",
        minItems: 1,
        items: { type: "string" },
        description: "names (or ids) of the project's channels this step notifies too",
      },
    },
  },
};

const CHECK: Schema = {
  type: "object",
  additionalProperties: false,
  description: "a check, matched by its uuid, else by its slug; a setting not written is the API's default",
  properties: {
    uuid: { ...UUID, description: "its ping URL's uuid: kept when the check is created here" },
    slug: { type: "string", pattern: "^[a-z0-9_-]*$", maxLength: LIMITS.slugMaxChars },
    name: text(LIMITS.nameMaxChars, "its name"),
    tags: {
      anyOf: [
        { type: "array", items: { type: "string", pattern: "^[^ ]+$" } },
        { type: "string", maxLength: LIMITS.tagsMaxChars },
      ],
      description: "a list, or space-separated",
    },
    desc: { type: "string" },
    timeout: seconds(LIMITS.timeoutMinMs, LIMITS.timeoutMaxMs, "seconds between pings (a simple check; default 86400)"),
    grace: seconds(LIMITS.timeoutMinMs, LIMITS.timeoutMaxMs, "seconds of grace (default 3600)"),
    schedule: {
      type: "string",
      minLength: 1,
      maxLength: LIMITS.scheduleMaxChars,
      description: "a cron or OnCalendar expression (instead of timeout)",
    },
    tz: { type: "string", description: "the schedule's time zone (default UTC)" },
    manual_resume: { type: "boolean" },
    methods: { enum: ["", "POST"] },
    start_kw: text(LIMITS.keywordsMaxChars, "keywords that start a run"),
    success_kw: text(LIMITS.keywordsMaxChars, "keywords of success"),
    failure_kw: text(LIMITS.keywordsMaxChars, "keywords of failure"),
    filter_subject: { type: "boolean" },
    filter_body: { type: "boolean" },
    filter_http_body: { type: "boolean" },
    filter_default_fail: { type: "boolean" },
    failure_threshold: { type: "integer", minimum: LIMITS.failureThresholdMin, maximum: LIMITS.failureThresholdMax },
    reminder_interval: zeroOr(LIMITS.reminderIntervalMinMs, LIMITS.reminderIntervalMaxMs, "seconds between reminders while down; 0 = none"),
    max_duration: zeroOr(LIMITS.maxDurationMinMs, LIMITS.maxDurationMaxMs, "seconds a run may take; 0 = no limit"),
    muted_until: { type: ["string", "null"], description: "ISO 8601: no notification before then" },
    depends_on: { type: "array", items: { type: "string" }, description: "uuids or slugs of checks of this file's project" },
    channels: { type: "array", items: { type: "string" }, description: "names (or ids) of the project's channels it notifies" },
    push_token: {
      anyOf: [{ type: "string", pattern: "^[A-Za-z0-9_-]{10,128}$" }, { type: "null" }],
      description: "an Uptime Kuma push monitor's token: /api/push/<token> pings the check",
    },
    min_duration: {
      type: "integer",
      minimum: 0,
      maximum: s(LIMITS.minDurationMaxMs),
      description: "seconds: a run that succeeds sooner is a failure; 0 = off",
    },
    alert_on_overlap: { type: "boolean", description: "a start or success while a run is open is a failure (else only noted)" },
    max_runs_per_period: {
      type: "integer",
      minimum: 0,
      maximum: LIMITS.maxRunsPerPeriodMax,
      description: "more successes than this in one period are a failure; 0 = off",
    },
    escalation: {
      anyOf: [ESCALATION, { type: "null" }],
      description: "the check's own escalation policy ([] = none); not written or null: its project's",
    },
  },
  not: { required: ["timeout", "schedule"] },
  dependencies: { tz: ["schedule"] },
};

const STATUS_PAGE: Schema = {
  type: "object",
  additionalProperties: false,
  required: ["slug", "title", "checks"],
  properties: {
    slug: { type: "string", pattern: "^[a-z0-9][a-z0-9-]{0,63}$", description: "its address: /status/<slug>, unique on the server" },
    title: { type: "string", minLength: 1, maxLength: LIMITS.nameMaxChars },
    description: {
      type: "string",
      maxLength: MAX_STATUS_DESCRIPTION,
      description: 'a few lines under the title (plain text); not written: the server\'s is kept, "": none',
    },
    logo: {
      type: "string",
      maxLength: MAX_LOGO_URL,
      description:
        "an https address of an image shown above the title (visitors' browsers load it; hcd never does); not written: the server's is kept, \"\": none",
    },
    checks: {
      type: "array",
      minItems: 1,
      maxItems: MAX_STATUS_CHECKS,
      items: { type: "string" },
      description: "uuids or slugs of checks of this file's project, in the order shown",
    },
    groups: {
      type: "array",
      maxItems: MAX_STATUS_GROUPS,
      description: "headings over some of the page's checks (shown after the ungrouped ones); not written: the server's are kept, []: none",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "checks"],
        properties: {
          name: { type: "string", minLength: 1, maxLength: LIMITS.nameMaxChars },
          checks: {
            type: "array",
            minItems: 1,
            items: { type: "string" },
            description: "some of the page's checks, each in one group at most",
          },
        },
      },
    },
  },
};

const MAINTENANCE: Schema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "schedule", "duration"],
  properties: {
    id: { ...UUID, description: "the window's id, when it has one here; else it is matched by name" },
    name: { type: "string", maxLength: LIMITS.nameMaxChars, description: "an entry without id needs one" },
    schedule: {
      type: "string",
      minLength: 1,
      maxLength: LIMITS.scheduleMaxChars,
      description: "cron or OnCalendar: when each window starts",
    },
    tz: { type: "string", description: "default UTC" },
    duration: seconds(LIMITS.maintenanceMinMs, LIMITS.maintenanceMaxMs, "seconds each window lasts"),
  },
};

const PROJECT: Schema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  description: "a project, matched by its id, else by its name; a section left out (channels, checks, ...) is left as it is",
  properties: {
    id: { ...UUID, description: "the project's id, when it has one here; else it is matched by name" },
    name: { type: "string", maxLength: LIMITS.nameMaxChars, description: "an entry without id needs one" },
    check_limit: { type: "integer", minimum: 0, maximum: 1_000_000, description: "left as it is when not written" },
    ping_log_limit: { type: "integer", minimum: 1, maximum: 1_000_000, description: "left as it is when not written" },
    ping_body_limit: { type: "integer", minimum: 0, maximum: 10_000_000, description: "bytes; left as it is when not written" },
    escalation: {
      ...ESCALATION,
      description: "the escalation policy of its checks without their own ([] = none); left as it is when not written",
    },
    channels: { type: "array", items: CHANNEL },
    checks: { type: "array", items: CHECK },
    status_pages: { type: "array", items: STATUS_PAGE },
    maintenance: { type: "array", items: MAINTENANCE },
  },
};

/** The schema, as published in docs/hcd-apply.schema.json. */
export const FILE_SCHEMA: Schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "hcd apply file",
  description: "Projects, checks, channels, status pages and maintenance windows that `hcd apply -f` makes hcd match",
  type: "object",
  additionalProperties: false,
  required: ["projects"],
  properties: {
    version: { const: 1 },
    projects: { type: "array", items: PROJECT },
  },
};

/** The schema as the published file's text. */
export function schemaText(): string {
  return JSON.stringify(FILE_SCHEMA, null, 2) + "\n";
}
